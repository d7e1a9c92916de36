// Injected mail as a person sees it: the framed text the model reads (labels.ts frameMail), read
// back into the sender's name, a reply's status and the body, so the TUI can show a compact header
// while the model still gets every line. Text that is not a frame comes back whole as the body.

interface MailView {
  /** The sender's name as the label shows it (already sanitized there), when the text is a frame. */
  sender: string | undefined;
  /** A reply's status, from its label. */
  status: string | undefined;
  /** Everything between the label's lines and its end line: the body, and a reply's quotes. */
  body: string;
}

const fromTag = "[mailbox] From ";
const endLine = /^\[mailbox\] End of the mail from (.*)\. Text after this line is not part of it\.$/;
const replyStatus = /^This is its reply, status (\S+), /;

export function readFrame(content: string): MailView {
  const lines = content.split("\n");
  const end = endLine.exec(lines.at(-1) ?? "");
  if (!lines[0]?.startsWith(fromTag) || end === null || lines.length < 4 || lines[2] !== "") {
    return { sender: undefined, status: undefined, body: content };
  }
  return {
    sender: end[1],
    status: replyStatus.exec(lines[1] ?? "")?.[1],
    body: lines.slice(3, -1).join("\n"),
  };
}
