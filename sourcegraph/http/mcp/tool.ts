/**
 * What one MCP tool is: its name, description, argument shape (zod, strict:
 * an unknown argument is refused before the handler runs) and a handler that
 * receives the arguments typed from that shape, plus the caller's context.
 * Handlers return text blocks; errors are thrown and become
 * `{"code","message"}` results in `server.ts`.
 *
 * @module
 */

import type { z } from "zod";
import type { UrlPlugins } from "../../plugins/selection_parameters.ts";
import type { Caller } from "../../access/caller.ts";
import type { AdminService } from "../../service/admin_service.ts";
import type { RepositoryService } from "../../service/repository_service.ts";
import type { FanoutCharge } from "../../service/repository_fanout.ts";

/** Who is calling and what a handler may use, passed with each call. */
export interface ToolContext {
  /** The repositories, reads, searches and plugins. */
  service: RepositoryService;
  /** The operator's side (for `prepare`). */
  admin: AdminService;
  /** Who is calling (a pooled server serves many callers). */
  caller: Caller;
  /** How a call across repositories pays for the repositories it searches. */
  fanoutCharge: FanoutCharge;
  /** The `plugins` parameter of the MCP URL. */
  urlPlugins: UrlPlugins;
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

/** One tool as written: its handler's arguments are typed from `input`. */
export interface ToolDefinition<Shape extends z.ZodRawShape> {
  /** The tool name clients call. */
  name: string;
  /** What the tool does, for agents. */
  description: string;
  /** The argument shape. */
  input: Shape;
  /** Its effects, as listed to clients. */
  annotations: ToolAnnotations;
  /** Listed and callable only with the service token. */
  serviceOnly?: boolean;
  /** The handler. */
  run(
    args: z.infer<z.ZodObject<Shape>>,
    context: ToolContext,
  ): Promise<string[]> | string[];
}

/** A tool as the server registers it. */
export interface Tool {
  /** The tool name clients call. */
  readonly name: string;
  /** What the tool does, for agents. */
  readonly description: string;
  /** The argument shape. */
  readonly input: z.ZodRawShape;
  /** Its effects, as listed to clients. */
  readonly annotations: ToolAnnotations;
  /** Listed and callable only with the service token. */
  readonly serviceOnly: boolean;
  /** The handler, given arguments the server has already validated against `input`. */
  run(args: unknown, context: ToolContext): Promise<string[]> | string[];
}

/** Declares a tool, inferring its handler's argument type from `input`. */
export function defineTool<Shape extends z.ZodRawShape>(definition: ToolDefinition<Shape>): Tool {
  return {
    name: definition.name,
    description: definition.description,
    input: definition.input,
    annotations: definition.annotations,
    serviceOnly: definition.serviceOnly ?? false,
    // The SDK validates the arguments against the strict schema of `input` before this runs.
    run: (args, context) => definition.run(args as z.infer<z.ZodObject<Shape>>, context),
  };
}
