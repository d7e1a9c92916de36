// pi-switchboard as a library: the mail and bus domains, their ports, and the node adapters, for
// hosts other than Pi. The Pi extensions live in src/pi and are loaded by Pi, not imported from here.

export { createFsBusStore, type FsBusStoreOptions } from "./adapters/fs/bus/fs-bus-store.js";
export { createFsMailStore, type FsMailStoreOptions } from "./adapters/fs/mail/fs-mail-store.js";
export type { FsLike } from "./adapters/fs/shared/fs-like.js";
export { createConfigFile } from "./adapters/node/config-file.js";
export { cryptoEntropy } from "./adapters/node/crypto-entropy.js";
export { createFsWatcher } from "./adapters/node/fs-watcher.js";
export { createGitRepoResolver, type GitRepoResolverOptions } from "./adapters/node/git-repo-resolver.js";
export { mailRootFromEnv } from "./adapters/node/mail-root.js";
export { nodeFs } from "./adapters/node/node-fs.js";
export { createProcessProbe } from "./adapters/node/proc-probe.js";
export { systemClock } from "./adapters/node/system-clock.js";
export { type BusError, describeBusError } from "./domain/bus/bus-errors.js";
export type { BusKind, BusMessage, ClaimName, SessionRecord } from "./domain/bus/bus-files.js";
export {
  type BusEngine,
  type BusEngineDeps,
  type BusIdentity,
  createBusEngine,
  type SendRequest,
  type SessionRow,
  type ShutdownReason,
} from "./domain/bus/engine/index.js";
export * as busLimits from "./domain/bus/limits.js";
export { type Address, isAddress, isUuid, shortId } from "./domain/mail/address.js";
export {
  type AddressError,
  type Addressee,
  type Candidate,
  describeAddressError,
  displayName,
  displayNames,
  resolveAddress,
  uniquePrefix,
  uniquePrefixes,
} from "./domain/mail/addressing.js";
export { type ConfigSource, defaultConfig, type MailConfig, readConfig } from "./domain/mail/config.js";
export * from "./domain/mail/engine/index.js";
export {
  decodeEnvelope,
  type Envelope,
  encodeEnvelope,
  envelopeFileName,
  type MailKind,
  mailKinds,
  type ReplyStatus,
  replyStatuses,
} from "./domain/mail/envelope.js";
export { endLine, frameMail, fromLine, type LabelInput } from "./domain/mail/framing.js";
export { describeHopRefusal, type HopState } from "./domain/mail/hop-rules.js";
export * from "./domain/mail/limits.js";
export { mailMessageType } from "./domain/mail/message-type.js";
export { decodeRunningRecord, type RunningRecord } from "./domain/mail/running-record.js";
export { type OwedMail, planSettle, type RunOutcome } from "./domain/mail/settle-rules.js";
export * from "./domain/shared/limits.js";
export { sanitizeField } from "./domain/shared/text/sanitize.js";
export type * from "./ports/bus/bus-host.js";
export type * from "./ports/bus/bus-store.js";
export type * from "./ports/bus/real-paths.js";
export type * from "./ports/bus/repo-resolver.js";
export type { AgentHost, InjectedMail, InjectOptions, NoticeLevel } from "./ports/mail/agent-host.js";
export type { ConfigFile } from "./ports/mail/config-file.js";
export type * from "./ports/mail/mail-store.js";
export type { Clock, TimerHandle } from "./ports/shared/clock.js";
export type { Entropy } from "./ports/shared/entropy.js";
export type * from "./ports/shared/process-probe.js";
export type { PathSafetyError, StoreError } from "./ports/shared/store-error.js";
export type * from "./ports/shared/watcher.js";
export { busFolder, createNodeBus, type NodeBusOptions, resolveBusPlace } from "./wiring/node-bus.js";
export { createNodeMailbox, type NodeMailboxOptions } from "./wiring/node-mailbox.js";
