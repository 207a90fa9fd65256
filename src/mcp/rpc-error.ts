/** JSON-RPC error codes svc answers besides the standard ones (MCP: resources, "Error Handling"). */
export const RESOURCE_NOT_FOUND = -32002;
export const INVALID_PARAMS = -32602;
/** svc's own refusals (scope, membership, budget): JSON-RPC's implementation-defined server error, with `data.code`. */
export const REFUSED = -32000;

/**
 * A JSON-RPC error thrown from a request handler: the SDK answers with its code, message and
 * data as they are. (The SDK's McpError would prefix the message with "MCP error <code>:".)
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}
