/** The custom message type under which mail enters a Pi conversation. */
export const mailMessageType = "session-mail";
