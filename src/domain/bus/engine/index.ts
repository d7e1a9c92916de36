export { type BusEngine, createBusEngine, type StartReason } from "./bus-engine.js";
export type { ClaimReport, ReleaseReport } from "./claims.js";
export type { BusEngineDeps } from "./context.js";
export type { InboxPreview, InboxRead } from "./inbox.js";
export type { ShutdownReason } from "./lifecycle.js";
export type { JoinReport, JoinRequest, SessionIdentity } from "./membership.js";
export type { SendReport, SendRequest } from "./send.js";
export type { ListeningState, SessionRow, StatusView } from "./status.js";
