import type { McpServer, RegisteredPrompt, RegisteredResource, RegisteredResourceTemplate, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { safeParse } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, type JSONRPCMessage, type JSONRPCRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { toAppError } from '../errors.js';
import { INVALID_PARAMS, REFUSED, RESOURCE_NOT_FOUND } from './rpc-error.js';
import { checkToolArguments } from './tool-input.js';

/** The SDK's schema of each client request, by method (the spec's types). */
const REQUESTS = new Map<string, (typeof ClientRequestSchema.options)[number]>(ClientRequestSchema.options.map((s) => [s.shape.method.value, s]));

type Answer = { error: { code: number; message: string; data?: Record<string, unknown> } } | { result: Record<string, unknown> };

/**
 * Answers, in front of the SDK, the requests a strict client expects to be refused in the
 * spec's words: params that do not match the method's schema (-32602 naming the
 * field; the SDK answers -32603 with a raw validation dump), an unknown tool or prompt (-32602;
 * the SDK makes an unknown tool a tool result), a URI no resource or template serves (-32002
 * with `data.uri`), and tool arguments our schemas refuse (a tool error worded as the CLI words
 * it; the SDK would prefix its own). Everything else goes on to the SDK unchanged.
 * Call after server.connect(transport).
 */
export function guardRequests(server: McpServer, transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('guardRequests: connect the server to the transport first');
  const registry = sdkRegistry(server);
  const served = servedMethods(registry);
  const answers = answerBudget(transport);
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    let answer: Answer | undefined;
    try {
      answer = isJSONRPCRequest(message) && served.has(message.method) ? check(registry, message) : undefined;
    } catch {
      answer = undefined; // a check that fails unexpectedly leaves the request to the SDK, as before
    }
    if (answer) return void transport.send({ jsonrpc: '2.0', id: (message as JSONRPCRequest).id, ...answer } as JSONRPCMessage);
    if (!isJSONRPCRequest(message)) return deliver(message, extra);
    answers.next(message, () => deliver(message, extra));
  };
}

/** Bytes of answers one POST may hold: past them, its further requests are refused (a single request is always answered). */
export const ANSWER_BUDGET_BYTES = 16 * 1024 * 1024;

/**
 * The requests of one POST go to the SDK one at a time, each once the previous one was answered,
 * and once the answers sent hold ANSWER_BUDGET_BYTES the rest are refused: the transport keeps
 * every answer of a batch until the last, then copies them into one body. A batch of 100
 * get_article calls of a 1.5 MB article, answered at once, was a 154 MB body and took the
 * daemon from 200 MB to 1.1 GB of RSS, with a read-only key.
 */
function answerBudget(transport: Transport): { next(request: JSONRPCRequest, go: () => void): void } {
  const send = transport.send.bind(transport);
  let spent = 0;
  let turn: Promise<void> = Promise.resolve();
  const waiting = new Map<JSONRPCRequest['id'], () => void>();
  transport.send = (message, options) => {
    const id = 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
    const answered = id === undefined ? undefined : waiting.get(id);
    if (answered) {
      spent += Buffer.byteLength(JSON.stringify(message)); // the body's bytes: non-ASCII text takes up to 3 a character
      waiting.delete(id!);
      answered();
    }
    return send(message, options);
  };
  return {
    next(request, go) {
      turn = turn.then(
        () =>
          new Promise<void>((resolve) => {
            if (spent >= ANSWER_BUDGET_BYTES) {
              const message = `The answers of this request already hold ${Math.round(spent / (1024 * 1024))} MB (at most ${ANSWER_BUDGET_BYTES / (1024 * 1024)} MB a POST): send this call again in another request`;
              void send({ jsonrpc: '2.0', id: request.id, error: { code: REFUSED, message, data: { code: 'answers_too_large' } } } as JSONRPCMessage);
              return resolve();
            }
            waiting.set(request.id, resolve);
            go();
          }),
      );
    },
  };
}

function check(registry: Registry, request: JSONRPCRequest): Answer | undefined {
  const parsed = REQUESTS.get(request.method)?.safeParse(request);
  if (parsed && !parsed.success) return invalidParams(`Invalid params for ${request.method}: ${describeIssues(parsed.error.issues)}`);
  const params = (request.params ?? {}) as { name?: string; uri?: string; arguments?: unknown };
  switch (request.method) {
    case 'tools/call': {
      const tool = registry._registeredTools[params.name!];
      if (!tool?.enabled) return invalidParams(`Unknown tool "${clip(params.name!)}": tools/list names the tools of this server`, { name: params.name });
      return toolArgumentsRefused(tool, params.arguments);
    }
    case 'prompts/get': {
      const prompt = registry._registeredPrompts[params.name!];
      if (!prompt?.enabled) return invalidParams(`Unknown prompt "${clip(params.name!)}": prompts/list names the prompts of this server`, { name: params.name });
      const args = prompt.argsSchema && safeParse(prompt.argsSchema, params.arguments ?? {});
      if (args && !args.success) return invalidParams(`Invalid arguments for prompt ${params.name}: ${describeIssues((args.error as { issues: Issue[] }).issues)}`);
      return undefined;
    }
    case 'resources/read':
      if (!hasResource(registry, params.uri!)) return { error: { code: RESOURCE_NOT_FOUND, message: `Resource not found: ${clip(params.uri!)}`, data: { uri: params.uri } } };
      return undefined;
    default:
      return undefined;
  }
}

function toolArgumentsRefused(tool: RegisteredTool, args: unknown): Answer | undefined {
  try {
    checkToolArguments(tool.inputSchema, args);
    return undefined;
  } catch (err) {
    const e = toAppError(err);
    if (e.status >= 500) throw err;
    return { result: { content: [{ type: 'text', text: e.message }], isError: true } };
  }
}

/** A name or URI quoted in a message, cut at 200 characters (data carries it whole). */
const clip = (s: string): string => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

const invalidParams = (message: string, data?: Record<string, unknown>): Answer => ({ error: { code: INVALID_PARAMS, message, ...(data ? { data } : {}) } });

type Issue = { path: PropertyKey[]; message: string };

/** "protocolVersion: expected string, received undefined; clientInfo: ..." */
function describeIssues(issues: readonly Issue[]): string {
  return issues
    .map((i) => {
      const path = (i.path[0] === 'params' ? i.path.slice(1) : i.path).map(String).join('.');
      const raw = i.message.replace(/^Invalid input: /, '');
      // zod's "Required" (or "expected string, received undefined") read as a person would say it.
      const missing = /^expected (\w+), received undefined$/.exec(raw);
      const message = raw === 'Required' ? 'is required' : missing ? `is required (${missing[1] === 'object' ? 'an object' : `a ${missing[1]}`})` : raw;
      return path ? `${path}: ${message}` : message;
    })
    .join('; ');
}

/**
 * The methods whose params are checked here: those the McpServer answers for what was
 * registered. Others go on as they are (the SDK answers -32601 Method not found).
 */
function servedMethods(registry: Registry): Set<string> {
  const any = (o: object) => Object.keys(o).length > 0;
  return new Set([
    'initialize',
    'ping',
    ...(any(registry._registeredTools) ? ['tools/list', 'tools/call'] : []),
    ...(any(registry._registeredResources) || any(registry._registeredResourceTemplates) ? ['resources/list', 'resources/templates/list', 'resources/read'] : []),
    ...(any(registry._registeredPrompts) ? ['prompts/list', 'prompts/get'] : []),
  ]);
}

interface Registry {
  _registeredTools: Record<string, RegisteredTool>;
  _registeredPrompts: Record<string, RegisteredPrompt>;
  _registeredResources: Record<string, RegisteredResource>;
  _registeredResourceTemplates: Record<string, RegisteredResourceTemplate>;
}

/**
 * What the McpServer registered. The SDK keeps it private and offers no accessor; reading it
 * here (the one place) lets an unknown name be told apart exactly as the SDK itself looks it up.
 * If an SDK upgrade moves it, this throws on the first request and every MCP test fails.
 */
function sdkRegistry(server: McpServer): Registry {
  const registry = server as unknown as Registry;
  for (const key of ['_registeredTools', '_registeredPrompts', '_registeredResources', '_registeredResourceTemplates'] as const) {
    if (!registry[key] || typeof registry[key] !== 'object') throw new Error(`The MCP SDK no longer has McpServer.${key}: update src/mcp/guard.ts`);
  }
  return registry;
}

function hasResource(registry: Registry, uri: string): boolean {
  if (registry._registeredResources[uri]?.enabled) return true;
  return Object.values(registry._registeredResourceTemplates).some((t) => t.enabled && matches(t, uri));
}

/** The SDK's matcher throws on a URI over 1 MB: nothing serves that either. */
function matches(t: RegisteredResourceTemplate, uri: string): boolean {
  try {
    return t.resourceTemplate.uriTemplate.match(uri) !== null;
  } catch {
    return false;
  }
}
