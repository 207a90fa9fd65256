import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { AppError } from '../errors.js';

/** The first protocol version without JSON-RPC batches (they were added in 2025-03-26 and removed in 2025-06-18). */
const BATCHES_REMOVED_IN = '2025-06-18';

const invalidRequest = (message: string) => new AppError('invalid_request', 400, `Invalid Request: ${message}`);

/**
 * The JSON-RPC rules of one POST body, checked before anything is charged or run; returns the
 * number of messages in it, what the call budget is charged: requests, notifications and
 * responses alike (each costs authentication and a server; else posts of notifications
 * alone would go uncounted). Refused with a 400: an empty batch, an element that is not a JSON-RPC message, a batch
 * longer than the SDK's limit, an unsupported MCP-Protocol-Version header (except on
 * initialize, which negotiates), any batch in a protocol version that removed them, and in
 * the others a batch holding initialize or one request id twice.
 */
export function checkMessages(body: unknown, protocolHeader: string | undefined): number {
  const batch = Array.isArray(body);
  const messages: unknown[] = batch ? body : [body];
  if (batch && messages.length === 0) throw invalidRequest('an empty batch holds no message; send at least one');
  if (messages.length > MAX_BATCH_SIZE) throw invalidRequest(`a batch may hold at most ${MAX_BATCH_SIZE} messages`);
  messages.forEach((m, i) => {
    if (!JSONRPCMessageSchema.safeParse(m).success) {
      throw invalidRequest(`${batch ? `message ${i + 1} of the batch` : 'the body'} is not a JSON-RPC 2.0 request, notification or response`);
    }
  });
  const initialize = messages.find((m): m is { method: 'initialize'; params?: { protocolVersion?: unknown } } => isJSONRPCRequest(m as never) && (m as { method: string }).method === 'initialize');
  if (protocolHeader && !(SUPPORTED_PROTOCOL_VERSIONS as string[]).includes(protocolHeader) && !(initialize && !batch)) {
    throw new AppError('unsupported_protocol_version', 400, `Bad Request: unsupported MCP-Protocol-Version ${protocolHeader} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
  }
  if (batch) {
    // Spec 2025-06-18, transports: without the header (and no other way to tell), assume 2025-03-26.
    const claimed = protocolHeader || initialize?.params?.protocolVersion;
    const version = typeof claimed === 'string' ? claimed : DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
    if (version >= BATCHES_REMOVED_IN) {
      throw new AppError('batch_not_supported', 400, `Invalid Request: JSON-RPC batches are not part of protocol version ${version} (removed in ${BATCHES_REMOVED_IN}); send one message per POST`);
    }
    // 2025-03-26, lifecycle: "The initialization request MUST NOT be part of a JSON-RPC batch".
    if (initialize) throw invalidRequest('initialize must be sent on its own, not in a batch');
    // One answer per id: a repeated id would run twice and be answered once.
    const ids = messages.filter((m) => isJSONRPCRequest(m as never)).map((m) => (m as { id: string | number }).id);
    const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
    if (repeated !== undefined) throw invalidRequest(`request id ${JSON.stringify(repeated)} appears more than once in the batch`);
  }
  return messages.length;
}

type Id = string | number;

/**
 * Who a refusal of the whole POST answers (JSON-RPC 2.0 §5): a single request's id; null when
 * no id can be read, and for a batch (one error for all of it, never one per element: a
 * refusal must not cost more to write than the request cost to send).
 */
export function replyIds(body: unknown): Id | null {
  const o = body as { id?: unknown; method?: unknown } | null | undefined;
  if (!o || typeof o !== 'object' || Array.isArray(o) || typeof o.method !== 'string') return null;
  return typeof o.id === 'string' || typeof o.id === 'number' ? o.id : null;
}
