// Starts Swagger UI on /api/docs. A file of its own, served by the product like the rest of the
// page: the Content-Security-Policy allows no inline script.
/* global SwaggerUIBundle */
window.addEventListener('DOMContentLoaded', function () {
  var ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    // No badge fetched from a validator elsewhere: the page talks to this server only.
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    // Signing in (or refreshing) from this page authorizes its other calls with the new tokens.
    responseInterceptor: function (response) {
      try {
        var path = new URL(response.url, window.location.href).pathname
        var data = response.ok && response.body && response.body.data
        if (data && /^\/api\/auth\/(login|refresh-token)$/.test(path)) {
          if (data.accessToken) ui.preauthorizeApiKey('bearerAuth', data.accessToken)
          if (data.csrfToken) ui.preauthorizeApiKey('csrfToken', data.csrfToken)
        }
      } catch (error) {
        // An answer this does not understand changes nothing.
      }
      return response
    },
  })
})
