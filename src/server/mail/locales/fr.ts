import type { MailTexts } from './types'

export const fr: MailTexts = {
  greeting: 'Bonjour {{name}},',
  copyLink: 'Ou copiez cette adresse dans votre navigateur :',
  templates: {
    'verify-email': {
      subject: 'Vérifiez votre adresse e-mail',
      paragraphs: ['Merci de vous être inscrit sur {{appName}}. Veuillez confirmer votre adresse e-mail pour activer votre compte.'],
      action: "Vérifier l'adresse e-mail",
      after: ['Ce lien expire dans 24 heures. Si vous ne vous êtes pas inscrit, vous pouvez ignorer ce message.'],
    },
    'already-registered': {
      subject: "Quelqu'un a essayé de s'inscrire avec votre adresse e-mail",
      paragraphs: [
        "Quelqu'un vient d'essayer de créer un compte avec cette adresse e-mail, qui a déjà un compte.",
        "Si c'était vous, connectez-vous plutôt, ou réinitialisez votre mot de passe si vous l'avez oublié.",
      ],
      action: 'Se connecter',
      after: ['Mot de passe oublié ? {{resetLink}}', "Si ce n'était pas vous, vous n'avez rien à faire : votre compte est inchangé."],
    },
    'reset-password': {
      subject: 'Réinitialisez votre mot de passe',
      paragraphs: ['Nous avons reçu une demande de réinitialisation du mot de passe de votre compte.'],
      action: 'Réinitialiser le mot de passe',
      after: ["Ce lien expire dans 1 heure et ne peut servir qu'une fois. Si vous ne l'avez pas demandé, ignorez ce message."],
    },
    'password-changed': {
      subject: 'Votre mot de passe a été modifié',
      paragraphs: ["Le mot de passe de votre compte vient d'être modifié, et vos autres sessions ont été déconnectées."],
      after: ["Si ce n'était pas vous, réinitialisez votre mot de passe maintenant : {{resetLink}}"],
    },
    invitation: {
      subject: 'Vous êtes invité',
      paragraphs: ['{{invitedBy}} vous a créé un compte sur {{appName}}. Choisissez votre mot de passe pour le rejoindre.'],
      action: "Accepter l'invitation",
      after: ["Ce lien expire dans 7 jours et ne peut servir qu'une fois. Si vous ne l'attendiez pas, vous pouvez ignorer ce message."],
    },
    'signed-out-by-admin': {
      subject: 'Vous avez été déconnecté de votre compte',
      paragraphs: ['Un administrateur a déconnecté votre compte sur tous vos appareils. Reconnectez-vous pour continuer.'],
      after: ["Si vous pensez que quelqu'un d'autre connaît votre mot de passe, réinitialisez-le maintenant : {{resetLink}}"],
    },
    'two-factor-enabled': {
      subject: "L'authentification à deux facteurs est activée",
      paragraphs: [
        "L'authentification à deux facteurs vient d'être activée sur votre compte : la connexion demande désormais un code de votre application d'authentification après votre mot de passe.",
        'Gardez vos codes de récupération en lieu sûr : chacun vous connecte une fois si vous perdez votre téléphone.',
      ],
      action: 'Vérifier vos réglages de sécurité',
      after: ["Si ce n'était pas vous, réinitialisez votre mot de passe maintenant : {{resetLink}}"],
    },
    'two-factor-disabled': {
      subject: "L'authentification à deux facteurs est désactivée",
      paragraphs: ["L'authentification à deux facteurs vient d'être désactivée sur votre compte : la connexion ne demande plus que votre mot de passe."],
      action: 'Vérifier vos réglages de sécurité',
      after: ["Si ce n'était pas vous, réinitialisez votre mot de passe maintenant et réactivez l'authentification à deux facteurs : {{resetLink}}"],
    },
    'recovery-codes-replaced': {
      subject: 'Nouveaux codes de récupération pour votre compte',
      paragraphs: ["Un nouveau jeu de codes de récupération vient d'être créé pour votre compte. Les codes précédents ne fonctionnent plus."],
      action: 'Vérifier vos réglages de sécurité',
      after: ["Si ce n'était pas vous, réinitialisez votre mot de passe maintenant : {{resetLink}}"],
    },
    'second-factors-reset-by-admin': {
      subject: "L'authentification à deux facteurs et les clés d'accès ont été réinitialisées",
      paragraphs: [
        "Un administrateur a désactivé l'authentification à deux facteurs de votre compte et supprimé ses clés d'accès, par exemple après la perte d'un téléphone. La connexion ne demande plus que votre mot de passe.",
        "Vous pouvez réactiver l'authentification à deux facteurs et ajouter de nouvelles clés d'accès dans vos réglages de sécurité.",
      ],
      action: 'Vérifier vos réglages de sécurité',
      after: ["Si vous ne l'avez pas demandé, réinitialisez votre mot de passe maintenant : {{resetLink}}"],
    },
    'new-sign-in': {
      subject: 'Nouvelle connexion à votre compte',
      paragraphs: [
        "Votre compte vient d'être connecté depuis un navigateur et un système qu'il n'a pas utilisés au cours des 90 derniers jours.",
        'Navigateur : {{browser}}',
        'Système : {{os}}',
        'Adresse : {{ip}}',
        'Heure : {{at}}',
      ],
      action: 'Voir vos appareils connectés',
      after: ["Si c'était vous, vous n'avez rien à faire. Sinon, déconnectez cet appareil depuis votre profil et changez votre mot de passe."],
    },
    'passkey-added': {
      subject: "Une clé d'accès a été ajoutée à votre compte",
      paragraphs: ["Une clé d'accès nommée « {{passkeyName}} » vient d'être ajoutée à votre compte. Elle permet désormais de se connecter sans mot de passe."],
      action: "Voir vos clés d'accès",
      after: ["Si ce n'était pas vous, retirez cette clé d'accès depuis votre profil et changez votre mot de passe."],
    },
    'account-deleted': {
      subject: 'Votre compte a été supprimé',
      paragraphs: [
        "Votre compte {{email}} a été supprimé à votre demande, avec tout ce qu'il contenait : votre profil et votre photo, vos clés d'accès et vos réglages de double authentification, et les accès que vous aviez accordés à des applications. Tous les appareils et applications connectés avec lui ont été déconnectés.",
        "C'est le dernier message que {{appName}} vous envoie au sujet de ce compte. Le journal d'activité garde ses entrées, qui ne sont plus liées à aucun compte.",
      ],
      after: ["Si vous n'avez pas demandé cette suppression, prévenez votre administrateur immédiatement."],
    },
    'webhook-disabled': {
      subject: 'Un webhook a été désactivé',
      paragraphs: [
        'Le point de terminaison {{url}} a échoué à chaque envoi pendant 5 jours : {{appName}} l’a donc désactivé. Les événements ne lui sont plus envoyés ; ils restent 30 jours dans le flux d’événements.',
        'Réparez le récepteur, puis réactivez le point de terminaison dans Administration, Webhooks : les envois encore en attente repartiront.',
      ],
      action: 'Ouvrir Webhooks',
    },
  },
}
