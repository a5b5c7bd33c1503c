import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './app/app'
import { applyPreferences, watchPreferences } from './lib/preferences'
import { session } from './lib/session'
import './styles.css'

void session.start()
watchPreferences()

// The chosen language is loaded before the first render, so the page never flashes in English.
// (public/theme.js already applied the theme before the first paint.)
void applyPreferences().finally(() => {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
})
