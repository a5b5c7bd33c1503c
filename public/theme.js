// Applies the saved theme (and language) before the first paint, so the page never flashes in the
// wrong colours. A same-origin file, loaded synchronously from <head>: the Content-Security-Policy
// allows no inline script. The key and values are those of src/web/lib/settings.ts.
;(function () {
  var settings = null
  try {
    settings = JSON.parse(window.localStorage.getItem('accounts.settings') || 'null')
  } catch (_error) {
    settings = null
  }
  var theme = settings && typeof settings.theme === 'string' ? settings.theme : 'system'
  var prefersDark = !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches)
  var dark = theme === 'dark' || (theme !== 'light' && prefersDark)
  var root = document.documentElement
  if (dark) root.classList.add('dark')
  else root.classList.remove('dark')
  root.style.colorScheme = dark ? 'dark' : 'light'
  if (settings && /^(en|fr|es|de)$/.test(settings.language)) root.lang = settings.language
})()
