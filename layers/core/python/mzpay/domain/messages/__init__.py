"""Messages to payers (docs/notifications.md): what each says, in which language, and how an SMS
is counted. Pure rules; the rendering is mzpay.messages, the sending mzpay.connectors.messaging."""
