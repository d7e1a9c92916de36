// Narrowing helpers over Pi RPC stdout records (JSON objects with a string `type`).

export interface RpcRecord {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface RpcResponse extends RpcRecord {
  readonly type: "response";
  readonly id?: string;
  readonly command: string;
  readonly success: boolean;
  readonly data?: unknown;
  readonly error?: string;
}

/** A command for Pi's stdin; `id` is filled in by `request()`. */
export interface RpcCommand {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface AssistantOutcome {
  text: string;
  stopReason: string;
  errorMessage: string | undefined;
}

export function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isRpcRecord(value: unknown): value is RpcRecord {
  return isObject(value) && typeof value.type === "string";
}

export function isRpcResponse(record: RpcRecord): record is RpcResponse {
  return record.type === "response" && typeof record.command === "string" && typeof record.success === "boolean";
}

/** The joined text blocks of a message's content (string or block array). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") texts.push(block.text);
  }
  return texts.join("\n");
}

/** The assistant message of a `message_end` record, or undefined for any other record. */
export function assistantOutcome(record: RpcRecord): AssistantOutcome | undefined {
  if (record.type !== "message_end" || !isObject(record.message)) return undefined;
  const message = record.message;
  if (message.role !== "assistant") return undefined;
  return {
    text: contentText(message.content),
    stopReason: typeof message.stopReason === "string" ? message.stopReason : "",
    errorMessage: typeof message.errorMessage === "string" ? message.errorMessage : undefined,
  };
}

/** Every assistant `message_end` in `records`, in order. */
export function assistantOutcomes(records: readonly RpcRecord[]): AssistantOutcome[] {
  const outcomes: AssistantOutcome[] = [];
  for (const record of records) {
    const outcome = assistantOutcome(record);
    if (outcome !== undefined) outcomes.push(outcome);
  }
  return outcomes;
}

/** The text of a `tool_execution_end` result, with its error flag; undefined for other records. */
export function toolEnd(record: RpcRecord): { toolName: string; text: string; isError: boolean } | undefined {
  if (record.type !== "tool_execution_end") return undefined;
  const result = isObject(record.result) ? record.result : {};
  return {
    toolName: typeof record.toolName === "string" ? record.toolName : "",
    text: contentText(result.content),
    isError: record.isError === true,
  };
}

export const isSettled = (record: RpcRecord): boolean => record.type === "agent_settled";
