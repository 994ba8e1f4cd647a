/**
 * What one MCP tool is: its name, description, argument shape (zod, strict:
 * an unknown argument is refused before the handler runs), the calls it uses
 * and a handler that receives the arguments typed from that shape, plus the
 * caller's context holding those calls and no others (`ToolCalls`, the one
 * interface of every call the MCP edge offers). Handlers answer text blocks
 * (what agents read) and a structured answer built from the same result,
 * which validates against the tool's `output` shape; errors are thrown and
 * become `{"code","message"}` results in `server.ts`.
 *
 * @module
 */

import type { z } from "zod";
import type { UrlPlugins } from "../../plugins/selection_parameters.ts";
import type { Caller } from "../../access/caller.ts";
import type { AdminService } from "../../service/admin_service.ts";
import type { RepositoryService } from "../../service/repository_service.ts";
import type { FanoutCharge } from "../../service/repository_fanout.ts";
import type { RoutedCalls } from "../../service/routed_calls.ts";

/**
 * The read side's calls the MCP edge offers besides the routed ones: they
 * run here and route what they read themselves (fan-outs, availability).
 */
export const SERVICE_CALLS = [
  "repositories",
  "availability",
  "resolveIndexed",
  "searchRepositories",
  "symbolsAcrossRepositories",
  "searchCommits",
] as const;

/** The operator's calls the MCP edge offers (to the service token's tools). */
export const ADMIN_CALLS = ["prepare"] as const;

/**
 * Every call the MCP edge offers its tools: the routed calls
 * (`service/routed_calls.ts`, so a call added there is offered with no more
 * code), the read side's `SERVICE_CALLS` and the operator's `ADMIN_CALLS`.
 */
export interface ToolCalls
  extends
    RoutedCalls,
    Pick<RepositoryService, typeof SERVICE_CALLS[number]>,
    Pick<AdminService, typeof ADMIN_CALLS[number]> {}

/** The name of one call a tool may use. */
export type ToolCall = keyof ToolCalls;

/**
 * Who is calling and what a handler may use, passed with each call: `calls`
 * holds the calls `Uses` the tool declared, and no others.
 */
export interface ToolContext<Uses extends ToolCall = never> {
  /** The calls the tool declared (`uses`), each run for this request's caller. */
  calls: Pick<ToolCalls, Uses>;
  /** Who is calling (a pooled server serves many callers). */
  caller: Caller;
  /** How a call across repositories pays for the repositories it searches. */
  fanoutCharge: FanoutCharge;
  /** The `plugins` parameter of the MCP URL. */
  urlPlugins: UrlPlugins;
  /** Makes a page path (`render/page_urls.ts`) absolute; null when no pages are served. */
  pageLink: ((path: string) => string) | null;
  /**
   * Marks the end of the base work: plugin time after it, and `pluginMs`
   * of plugin time already spent, are not in the latency metrics.
   */
  baseDone: (pluginMs?: number) => void;
}

/**
 * What a tool tells clients about its effects (MCP tool annotations): a tool
 * that only reads says so, with whether it reaches outside the service; a tool
 * that changes state says whether it may remove anything and whether a repeat
 * with the same arguments does more.
 */
export type ToolAnnotations =
  | { readOnlyHint: true; idempotentHint: true; openWorldHint: boolean }
  | {
    readOnlyHint: false;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };

/**
 * The annotations of a tool that reads the service's own mirrors and indexes
 * only: no effect, nothing outside the service.
 */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/** A tool's answer: its text blocks and the same facts as structured content. */
export interface ToolAnswer {
  /** The text blocks agents read. */
  text: string[];
  /** The structured content; it validates against the tool's `output` shape. */
  structured: Record<string, unknown>;
}

/**
 * One tool as written: its handler's arguments are typed from `input`, and
 * its context holds the calls of `uses` only (another fails to type-check).
 */
export interface ToolDefinition<Shape extends z.ZodRawShape, Uses extends ToolCall> {
  /** The tool name clients call. */
  name: string;
  /** What the tool does, for agents. */
  description: string;
  /** The argument shape. */
  input: Shape;
  /** The shape of the structured answer (keep it small: it is listed with the tool). */
  output: z.ZodRawShape;
  /** The calls its handler uses (its context holds these and no others). */
  uses: readonly Uses[];
  /** Its effects, as listed to clients. */
  annotations: ToolAnnotations;
  /** Listed and callable only with the service token. */
  serviceOnly?: boolean;
  /** The handler. */
  run(
    args: z.infer<z.ZodObject<Shape>>,
    context: ToolContext<Uses>,
  ): Promise<ToolAnswer> | ToolAnswer;
}

/** A tool as the server registers it. */
export interface Tool {
  /** The tool name clients call. */
  readonly name: string;
  /** What the tool does, for agents. */
  readonly description: string;
  /** The argument shape. */
  readonly input: z.ZodRawShape;
  /** The shape of the structured answer. */
  readonly output: z.ZodRawShape;
  /** The calls its handler uses: the server hands it these (`toolCalls`) and no others. */
  readonly uses: readonly ToolCall[];
  /** Its effects, as listed to clients. */
  readonly annotations: ToolAnnotations;
  /** Listed and callable only with the service token. */
  readonly serviceOnly: boolean;
  /**
   * The handler, given arguments the server has already validated against
   * `input` and a context whose `calls` are `toolCalls(uses, …)`.
   */
  run(args: unknown, context: ToolContext): Promise<ToolAnswer> | ToolAnswer;
}

/**
 * Declares a tool, inferring its handler's argument type from `input` and
 * its context's calls from `uses`.
 */
export function defineTool<Shape extends z.ZodRawShape, const Uses extends ToolCall>(
  definition: ToolDefinition<Shape, Uses>,
): Tool {
  return {
    name: definition.name,
    description: definition.description,
    input: definition.input,
    output: definition.output,
    uses: definition.uses,
    annotations: definition.annotations,
    serviceOnly: definition.serviceOnly ?? false,
    // The SDK validates the arguments against the strict schema of `input`
    // before this runs, and the server hands the calls of `uses` (`toolCalls`).
    run: (args, context) =>
      definition.run(args as z.infer<z.ZodObject<Shape>>, context as ToolContext<Uses>),
  };
}

/** Where the calls a server offers its tools come from. */
export interface ToolCallSources {
  /** The read side: its `calls` (routed) and its `SERVICE_CALLS`. */
  service: RepositoryService;
  /** The operator's side: its `ADMIN_CALLS`. */
  admin: AdminService;
}

/**
 * An object holding exactly the calls `uses` (own keys, nothing else), each
 * passing its arguments to `sources`: what the server hands a tool.
 */
export function toolCalls<Uses extends ToolCall>(
  uses: readonly Uses[],
  sources: ToolCallSources,
): Pick<ToolCalls, Uses> {
  return Object.fromEntries(
    uses.map((name) => [name, offeredCall(name, sources)]),
  ) as unknown as Pick<ToolCalls, Uses>;
}

type AnyCall = (...args: unknown[]) => unknown;

// Looked up on every call, not when the server is built: a cluster's router
// replaces the service's routed calls (`useRouter`) after the edge exists.
function offeredCall(name: ToolCall, { service, admin }: ToolCallSources): AnyCall {
  if ((ADMIN_CALLS as readonly string[]).includes(name)) {
    return (...args) => (admin[name as keyof AdminService] as AnyCall).apply(admin, args);
  }
  if ((SERVICE_CALLS as readonly string[]).includes(name)) {
    return (...args) => (service[name as keyof RepositoryService] as AnyCall).apply(service, args);
  }
  return (...args) => (service.calls[name as keyof RoutedCalls] as AnyCall)(...args);
}
