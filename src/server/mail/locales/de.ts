import type { MailTexts } from './types'

export const de: MailTexts = {
  greeting: 'Hallo {{name}},',
  copyLink: 'Oder kopieren Sie diese Adresse in Ihren Browser:',
  templates: {
    'verify-email': {
      subject: 'Bestätigen Sie Ihre E-Mail-Adresse',
      paragraphs: ['Vielen Dank für Ihre Registrierung bei {{appName}}. Bitte bestätigen Sie Ihre E-Mail-Adresse, um Ihr Konto zu aktivieren.'],
      action: 'E-Mail-Adresse bestätigen',
      after: ['Dieser Link ist 24 Stunden gültig. Wenn Sie sich nicht registriert haben, können Sie diese Nachricht ignorieren.'],
    },
    'already-registered': {
      subject: 'Jemand hat versucht, sich mit Ihrer E-Mail-Adresse zu registrieren',
      paragraphs: [
        'Soeben hat jemand versucht, ein Konto mit dieser E-Mail-Adresse zu erstellen, für die bereits ein Konto besteht.',
        'Wenn Sie das waren, melden Sie sich stattdessen an, oder setzen Sie Ihr Passwort zurück, falls Sie es vergessen haben.',
      ],
      action: 'Anmelden',
      after: ['Passwort vergessen? {{resetLink}}', 'Wenn Sie das nicht waren, müssen Sie nichts tun: Ihr Konto ist unverändert.'],
    },
    'reset-password': {
      subject: 'Setzen Sie Ihr Passwort zurück',
      paragraphs: ['Wir haben eine Anfrage erhalten, das Passwort Ihres Kontos zurückzusetzen.'],
      action: 'Passwort zurücksetzen',
      after: ['Dieser Link ist 1 Stunde gültig und kann nur einmal verwendet werden. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese Nachricht.'],
    },
    'password-changed': {
      subject: 'Ihr Passwort wurde geändert',
      paragraphs: ['Das Passwort Ihres Kontos wurde soeben geändert, und Ihre anderen Sitzungen wurden abgemeldet.'],
      after: ['Wenn Sie das nicht waren, setzen Sie Ihr Passwort jetzt zurück: {{resetLink}}'],
    },
    invitation: {
      subject: 'Sie sind eingeladen',
      paragraphs: ['{{invitedBy}} hat für Sie ein Konto bei {{appName}} angelegt. Wählen Sie Ihr Passwort, um beizutreten.'],
      action: 'Einladung annehmen',
      after: ['Dieser Link läuft in 7 Tagen ab und kann einmal verwendet werden. Wenn Sie ihn nicht erwartet haben, können Sie diese Nachricht ignorieren.'],
    },
    'signed-out-by-admin': {
      subject: 'Sie wurden von Ihrem Konto abgemeldet',
      paragraphs: ['Ein Administrator hat Ihr Konto auf allen Geräten abgemeldet. Melden Sie sich erneut an, um fortzufahren.'],
      after: ['Wenn Sie glauben, dass jemand anderes Ihr Passwort kennt, setzen Sie es jetzt zurück: {{resetLink}}'],
    },
    'two-factor-enabled': {
      subject: 'Die Zwei-Faktor-Authentifizierung ist eingeschaltet',
      paragraphs: [
        'Für Ihr Konto wurde soeben die Zwei-Faktor-Authentifizierung eingeschaltet: Bei der Anmeldung wird nach Ihrem Passwort nun ein Code aus Ihrer Authenticator-App verlangt.',
        'Bewahren Sie Ihre Wiederherstellungscodes sicher auf: Jeder meldet Sie einmal an, falls Sie Ihr Telefon verlieren.',
      ],
      action: 'Sicherheitseinstellungen prüfen',
      after: ['Falls Sie das nicht waren, setzen Sie Ihr Passwort jetzt zurück: {{resetLink}}'],
    },
    'two-factor-disabled': {
      subject: 'Die Zwei-Faktor-Authentifizierung ist ausgeschaltet',
      paragraphs: ['Für Ihr Konto wurde soeben die Zwei-Faktor-Authentifizierung ausgeschaltet: Bei der Anmeldung wird nur noch Ihr Passwort verlangt.'],
      action: 'Sicherheitseinstellungen prüfen',
      after: ['Falls Sie das nicht waren, setzen Sie Ihr Passwort jetzt zurück und schalten Sie die Zwei-Faktor-Authentifizierung wieder ein: {{resetLink}}'],
    },
    'recovery-codes-replaced': {
      subject: 'Neue Wiederherstellungscodes für Ihr Konto',
      paragraphs: ['Für Ihr Konto wurden soeben neue Wiederherstellungscodes erstellt. Die bisherigen Codes gelten nicht mehr.'],
      action: 'Sicherheitseinstellungen prüfen',
      after: ['Falls Sie das nicht waren, setzen Sie Ihr Passwort jetzt zurück: {{resetLink}}'],
    },
    'second-factors-reset-by-admin': {
      subject: 'Zwei-Faktor-Authentifizierung und Passkeys wurden zurückgesetzt',
      paragraphs: [
        'Ein Administrator hat die Zwei-Faktor-Authentifizierung für Ihr Konto ausgeschaltet und seine Passkeys entfernt, zum Beispiel nach dem Verlust eines Telefons. Bei der Anmeldung wird nur noch Ihr Passwort verlangt.',
        'In Ihren Sicherheitseinstellungen können Sie die Zwei-Faktor-Authentifizierung wieder einschalten und neue Passkeys hinzufügen.',
      ],
      action: 'Sicherheitseinstellungen prüfen',
      after: ['Falls Sie das nicht veranlasst haben, setzen Sie Ihr Passwort jetzt zurück: {{resetLink}}'],
    },
    'new-sign-in': {
      subject: 'Neue Anmeldung bei Ihrem Konto',
      paragraphs: [
        'Ihr Konto wurde soeben von einem Browser und System angemeldet, die es in den letzten 90 Tagen nicht verwendet hat.',
        'Browser: {{browser}}',
        'System: {{os}}',
        'Adresse: {{ip}}',
        'Zeit: {{at}}',
      ],
      action: 'Angemeldete Geräte ansehen',
      after: ['Wenn Sie das waren, ist nichts zu tun. Wenn nicht, melden Sie dieses Gerät in Ihrem Profil ab und ändern Sie Ihr Passwort.'],
    },
    'passkey-added': {
      subject: 'Ihrem Konto wurde ein Passkey hinzugefügt',
      paragraphs: ['Ihrem Konto wurde soeben ein Passkey namens „{{passkeyName}}“ hinzugefügt. Mit ihm kann man sich jetzt ohne Passwort anmelden.'],
      action: 'Ihre Passkeys ansehen',
      after: ['Wenn Sie das nicht waren, entfernen Sie den Passkey in Ihrem Profil und ändern Sie Ihr Passwort.'],
    },
    'account-deleted': {
      subject: 'Ihr Konto wurde gelöscht',
      paragraphs: [
        'Ihr Konto {{email}} wurde auf Ihren Wunsch gelöscht, mit allem, was dazugehörte: Ihr Profil und Ihr Bild, Ihre Passkeys und Einstellungen der Zwei-Faktor-Authentifizierung sowie die Zugriffe, die Sie Apps erlaubt hatten. Alle Geräte und Apps, die damit angemeldet waren, wurden abgemeldet.',
        'Dies ist die letzte Nachricht von {{appName}} zu diesem Konto. Das Aktivitätsprotokoll behält seine Einträge, die mit keinem Konto mehr verbunden sind.',
      ],
      after: ['Wenn Sie das nicht veranlasst haben, verständigen Sie sofort Ihren Administrator.'],
    },
    'webhook-disabled': {
      subject: 'Ein Webhook wurde deaktiviert',
      paragraphs: [
        'Der Endpunkt {{url}} hat 5 Tage lang jede Zustellung abgelehnt, daher hat {{appName}} ihn deaktiviert. Ereignisse werden ihm nicht mehr gesendet; sie bleiben 30 Tage im Ereignis-Feed.',
        'Reparieren Sie den Empfänger und aktivieren Sie den Endpunkt unter Administration, Webhooks wieder: noch wartende Zustellungen werden erneut gesendet.',
      ],
      action: 'Webhooks öffnen',
    },
  },
}
