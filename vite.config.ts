import path from 'node:path'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

/** The web app's build. `npm run dev` serves it with hot reload and sends /api to the server. */
export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: {
      '~shared': path.resolve('src/shared'),
      '~web': path.resolve('src/web'),
    },
  },
  build: {
    outDir: 'dist/web',
    emptyOutDir: true,
    sourcemap: false,
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: `http://127.0.0.1:${process.env.API_PORT ?? 3000}`, changeOrigin: false },
      '/dev/outbox': { target: `http://127.0.0.1:${process.env.API_PORT ?? 3000}` },
      // Sign in with Accounts: the provider answers at APP_URL/oidc, the Vite address in development.
      '/oidc': { target: `http://127.0.0.1:${process.env.API_PORT ?? 3000}`, changeOrigin: false },
    },
  },
})
