import type { MailTexts } from './types'

export const es: MailTexts = {
  greeting: 'Hola, {{name}}:',
  copyLink: 'O copia esta dirección en tu navegador:',
  templates: {
    'verify-email': {
      subject: 'Verifica tu dirección de correo electrónico',
      paragraphs: ['Gracias por registrarte en {{appName}}. Confirma tu dirección de correo electrónico para activar tu cuenta.'],
      action: 'Verificar la dirección de correo',
      after: ['Este enlace caduca en 24 horas. Si no te has registrado, puedes ignorar este mensaje.'],
    },
    'already-registered': {
      subject: 'Alguien intentó registrarse con tu dirección de correo electrónico',
      paragraphs: [
        'Alguien acaba de intentar crear una cuenta con esta dirección de correo electrónico, que ya tiene una cuenta.',
        'Si fuiste tú, inicia sesión, o restablece tu contraseña si la has olvidado.',
      ],
      action: 'Iniciar sesión',
      after: ['¿Olvidaste tu contraseña? {{resetLink}}', 'Si no fuiste tú, no tienes que hacer nada: tu cuenta no ha cambiado.'],
    },
    'reset-password': {
      subject: 'Restablece tu contraseña',
      paragraphs: ['Hemos recibido una solicitud para restablecer la contraseña de tu cuenta.'],
      action: 'Restablecer la contraseña',
      after: ['Este enlace caduca en 1 hora y solo se puede usar una vez. Si no lo has pedido, ignora este mensaje.'],
    },
    'password-changed': {
      subject: 'Tu contraseña ha cambiado',
      paragraphs: ['La contraseña de tu cuenta acaba de cambiar y se han cerrado tus demás sesiones.'],
      after: ['Si no has sido tú, restablece tu contraseña ahora: {{resetLink}}'],
    },
    invitation: {
      subject: 'Te han invitado',
      paragraphs: ['{{invitedBy}} ha creado una cuenta para ti en {{appName}}. Elige tu contraseña para unirte.'],
      action: 'Aceptar invitación',
      after: ['Este enlace caduca en 7 días y solo se puede usar una vez. Si no lo esperabas, puedes ignorar este mensaje.'],
    },
    'signed-out-by-admin': {
      subject: 'Se cerró la sesión de tu cuenta',
      paragraphs: ['Un administrador cerró la sesión de tu cuenta en todos tus dispositivos. Vuelve a iniciar sesión para continuar.'],
      after: ['Si crees que otra persona conoce tu contraseña, restablécela ahora: {{resetLink}}'],
    },
    'two-factor-enabled': {
      subject: 'La autenticación en dos pasos está activada',
      paragraphs: [
        'Se acaba de activar la autenticación en dos pasos en su cuenta: al iniciar sesión se pedirá un código de su aplicación de autenticación después de la contraseña.',
        'Guarde sus códigos de recuperación en un lugar seguro: cada uno le permite iniciar sesión una vez si pierde el teléfono.',
      ],
      action: 'Revisar sus ajustes de seguridad',
      after: ['Si no fue usted, restablezca su contraseña ahora: {{resetLink}}'],
    },
    'two-factor-disabled': {
      subject: 'La autenticación en dos pasos está desactivada',
      paragraphs: ['Se acaba de desactivar la autenticación en dos pasos en su cuenta: al iniciar sesión solo se pedirá la contraseña.'],
      action: 'Revisar sus ajustes de seguridad',
      after: ['Si no fue usted, restablezca su contraseña ahora y vuelva a activar la autenticación en dos pasos: {{resetLink}}'],
    },
    'recovery-codes-replaced': {
      subject: 'Nuevos códigos de recuperación para su cuenta',
      paragraphs: ['Se acaba de crear un nuevo conjunto de códigos de recuperación para su cuenta. Los códigos anteriores ya no funcionan.'],
      action: 'Revisar sus ajustes de seguridad',
      after: ['Si no fue usted, restablezca su contraseña ahora: {{resetLink}}'],
    },
    'second-factors-reset-by-admin': {
      subject: 'Se restablecieron la autenticación en dos pasos y las llaves de acceso',
      paragraphs: [
        'Un administrador desactivó la autenticación en dos pasos de su cuenta y eliminó sus llaves de acceso, por ejemplo tras la pérdida de un teléfono. Al iniciar sesión solo se pedirá la contraseña.',
        'Puede volver a activar la autenticación en dos pasos y añadir nuevas llaves de acceso en sus ajustes de seguridad.',
      ],
      action: 'Revisar sus ajustes de seguridad',
      after: ['Si no lo pidió usted, restablezca su contraseña ahora: {{resetLink}}'],
    },
    'new-sign-in': {
      subject: 'Nuevo inicio de sesión en tu cuenta',
      paragraphs: [
        'Se acaba de iniciar sesión en tu cuenta desde un navegador y un sistema que no ha usado en los últimos 90 días.',
        'Navegador: {{browser}}',
        'Sistema: {{os}}',
        'Dirección: {{ip}}',
        'Hora: {{at}}',
      ],
      action: 'Revisar tus dispositivos con sesión iniciada',
      after: ['Si fuiste tú, no tienes que hacer nada. Si no, cierra la sesión de ese dispositivo desde tu perfil y cambia tu contraseña.'],
    },
    'passkey-added': {
      subject: 'Se añadió una llave de acceso a tu cuenta',
      paragraphs: ['Se acaba de añadir a tu cuenta una llave de acceso llamada «{{passkeyName}}». Ahora puede usarse para iniciar sesión sin contraseña.'],
      action: 'Revisar tus llaves de acceso',
      after: ['Si no fuiste tú, quita la llave de acceso desde tu perfil y cambia tu contraseña.'],
    },
    'account-deleted': {
      subject: 'Tu cuenta se ha eliminado',
      paragraphs: [
        'Tu cuenta {{email}} se ha eliminado a petición tuya, con todo lo que contenía: tu perfil y tu foto, tus llaves de acceso y tu configuración de verificación en dos pasos, y el acceso que habías dado a aplicaciones. Se ha cerrado la sesión en todos los dispositivos y aplicaciones donde estaba iniciada.',
        'Este es el último mensaje que recibirás de {{appName}} sobre esta cuenta. El registro de actividad conserva sus entradas, ya sin vínculo con ninguna cuenta.',
      ],
      after: ['Si no lo pediste tú, avisa a tu administrador de inmediato.'],
    },
    'webhook-disabled': {
      subject: 'Se ha desactivado un webhook',
      paragraphs: [
        'El punto de conexión {{url}} falló en todos los envíos durante 5 días, por lo que {{appName}} lo ha desactivado. Ya no se le envían eventos; siguen 30 días en el flujo de eventos.',
        'Repare el receptor y vuelva a activar el punto de conexión en Administración, Webhooks: los envíos pendientes se enviarán de nuevo.',
      ],
      action: 'Abrir Webhooks',
    },
  },
}
