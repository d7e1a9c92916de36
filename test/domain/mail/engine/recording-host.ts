// A fake AgentHost that records what the engine asks of it: injections with their options, notices, footers.
import type { AgentHost, InjectedMail, InjectOptions, NoticeLevel } from "../../../../src/ports/mail/agent-host.js";

export interface Injection {
  mail: InjectedMail;
  options: InjectOptions;
}

export interface RecordingHost extends AgentHost {
  readonly injected: Injection[];
  readonly notices: Array<{ text: string; level: NoticeLevel }>;
  /** Every setStatus call, in order. */
  readonly footers: Array<string | undefined>;
  /** Mail ids the test entered into the conversation. */
  readonly shown: Set<string>;
}

export function createRecordingHost(onNotice: () => void = () => {}): RecordingHost {
  const host: RecordingHost = {
    injected: [],
    notices: [],
    footers: [],
    shown: new Set(),
    inject: (mail, options) => void host.injected.push({ mail, options: { ...options } }),
    notify(text, level) {
      host.notices.push({ text, level });
      onNotice();
    },
    setStatus: (text) => void host.footers.push(text),
    hasShown: (id) => host.shown.has(id),
  };
  return host;
}
