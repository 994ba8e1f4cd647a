/**
 * Every `SOURCEGRAPH_*` setting of the service, parsed and validated once at
 * start. A bad value is reported as one line naming the variable, what it
 * must be and what it was given (secrets are never echoed); the start stops
 * when any line was reported. Plugin settings (`SOURCEGRAPH_PLUGINS_*`) are
 * parsed by their own module and reported the same way.
 *
 * @module
 */

import { resolve } from "node:path";
import {
  parseDuration,
  type PluginSettings,
  readPluginSettings,
} from "./plugins/plugin_settings.ts";
import { unknownSettingWarnings } from "./setting_names.ts";
import { DEFAULT_HELD_POSTINGS_MIB } from "./search/build/index_builder.ts";
import {
  DEFAULT_BUILD_SLICE_MS,
  DEFAULT_INDEX_CACHE_MIB,
  DEFAULT_SYMBOL_BUDGET_MS,
} from "./search/search_indexes.ts";
import { DEFAULT_BUILD_IDLE_MS } from "./search/build_watch.ts";
import { RECONNECT_CAP_MS } from "./store/postgres/reconnect_loop.ts";

/** Connection and request limits of the HTTP front. */
export interface ConnectionSettings {
  /** A request head must be complete within this time of its first byte (or of the connect). */
  headerTimeoutMs: number;
  /**
   * Bytes per second a request head must keep arriving at: a head gets
   * `HEAD_WINDOW_MS` plus a second for every this many bytes received, never
   * more than `headerTimeoutMs` (0 turns the rate off).
   */
  headerMinRate: number;
  /** A keep-alive connection with no request and no traffic is closed after this time. */
  idleTimeoutMs: number;
  /** A request body must arrive completely within this time. */
  bodyTimeoutMs: number;
  /** Open client connections; further ones are refused at once. */
  maxConnections: number;
  /** Open connections per client address. */
  maxConnectionsPerAddress: number;
  /** Largest request body of the plain HTTP and admin APIs. */
  maxBodyBytes: number;
  /** Largest MCP request body. */
  maxMcpBodyBytes: number;
  /** Largest body an anonymous caller may send (MCP, HTTP API, forms). */
  maxAnonymousBodyBytes: number;
}

/** The port the service listens on when neither `--port` nor `SOURCEGRAPH_PORT` names one. */
export const DEFAULT_PORT = 8787;

/** The service's settings. */
export interface ServiceSettings {
  /** Data folder (absolute). */
  dataDir: string;
  /** sourcegraph.toml path (absolute). */
  configPath: string;
  /** The service token, if configured. */
  serviceToken?: string;
  /** The URL printed at start when set. */
  publicUrl?: string;
  /** The port to listen on when the command line gives no `--port` (0: a free one). */
  port: number;
  /** Anonymous reads of public repositories. */
  publicRead: boolean;
  /** OAuth clients may be named by an https URL of their metadata document (fetched). */
  oauthClientDocuments: boolean;
  /** Development only: metadata documents on loopback and private addresses may be fetched. */
  oauthClientDocumentsPrivate: boolean;
  /** An external authorization server whose JWTs are accepted (the embedded one is then off). */
  oauthIssuer?: OAuthIssuerSettings;
  /** Anonymous tool calls per minute per client address. */
  anonymousPerMinute: number;
  /** Anonymous requests in flight per client address. */
  anonymousConcurrency: number;
  /** Host names accepted in Host/Origin besides the loopback names. */
  allowedHosts: string[];
  /** Default sync interval in minutes (a registration may set its own). */
  syncMinutes: number;
  /** How often the branches of repositories whose source is a local path are compared with the mirror. */
  localCheckMs: number;
  /** Whether searches use (and syncs build) the on-disk trigram index. */
  searchIndex: boolean;
  /** MiB of posting lists the index builder holds in memory before writing them. */
  indexBuildPostingsMib: number;
  /** MiB the service's open index commits may take. */
  indexCacheMib: number;
  /** How long an index build may report nothing before it is stopped. */
  indexBuildIdleMs: number;
  /** How long an index build runs alone before the next repository's starts beside it. */
  indexBuildSliceMs: number;
  /** How long each commit's symbol extraction may take in an index build. */
  symbolBudgetMs: number;
  /** Versions kept for the auto-registered checkout. */
  defaultRetain: number;
  /** Debug logging. */
  debug: boolean;
  /** How long a stop waits for requests in flight before it cuts them. */
  stopGraceMs: number;
  /** How long one Markdown document may take to render before it is shown as its source. */
  markdownTimeoutMs: number;
  /** The HTTP front's limits. */
  connections: ConnectionSettings;
  /** The plugin host's limits. */
  plugins: PluginSettings;
  /** The shared PostgreSQL store (unset: the SQLite file in the data folder). */
  database?: DatabaseSettings;
}

/** An external OAuth issuer: where it is, where its keys are, and how its tokens are read. */
export interface OAuthIssuerSettings {
  /** Its issuer URL, exactly as its tokens' `iss`. */
  issuer: string;
  /** The URL of its JSON Web Key Set. */
  jwksUrl: string;
  /** The `aud` its tokens must name (unset: the MCP URL). */
  audience?: string;
  /** The claim that holds the scopes. */
  scopeClaim: string;
}

/** Where a replica finds the store it shares with others, and how it takes part. */
export interface DatabaseSettings {
  /** `postgres://` or `postgresql://` URL (it holds a password: never logged). */
  url: string;
  /** The file holding the key that seals fetch credentials (absolute). */
  credentialKeyFile: string;
  /** This replica in the cluster. */
  cluster: ReplicaSettings;
  /** The longest wait between two attempts to reach a lost database again (default 5 s). */
  reconnectMaxWaitMs: number;
}

/** A replica's name, addresses, heartbeat and the replication of repositories. */
export interface ReplicaSettings {
  replicaName: string;
  /** How other replicas reach this one's internal listener. */
  internalUrl: string;
  /** Where the internal listener listens. */
  internalListen: { hostname: string; port: number };
  /**
   * Open connections of the internal listener (its time limits are those of
   * the public front), and from one address.
   */
  internalLimits: { maxConnections: number; maxConnectionsPerAddress: number };
  heartbeatMs: number;
  expiryMs: number;
  replication: number;
}

/** The connection defaults. */
export const DEFAULT_CONNECTION_SETTINGS: ConnectionSettings = {
  headerTimeoutMs: 10_000,
  headerMinRate: 500,
  idleTimeoutMs: 60_000,
  bodyTimeoutMs: 30_000,
  maxConnections: 512,
  maxConnectionsPerAddress: 32,
  maxBodyBytes: 1024 * 1024,
  maxMcpBodyBytes: 4 * 1024 * 1024,
  maxAnonymousBodyBytes: 128 * 1024,
};

/** The internal listener's connection cap by default. */
export const DEFAULT_INTERNAL_MAX_CONNECTIONS = 256;

/**
 * The internal listener's default per-address cap: a quarter of its cap (at
 * least 4), since its callers are the few other replicas.
 */
export function defaultInternalPerAddressCap(maxConnections: number): number {
  return Math.max(Math.min(4, maxConnections), Math.floor(maxConnections / 4));
}

/** The default per-address cap: a sixteenth of the global one (at least 4). */
export function defaultPerAddressCap(maxConnections: number): number {
  return Math.max(Math.min(4, maxConnections), Math.floor(maxConnections / 16));
}

/**
 * Settings, or the lines that say which values are bad; either way the
 * warnings about set `SOURCEGRAPH_*` variables that name no setting.
 */
export type SettingsResult =
  | { ok: true; settings: ServiceSettings; warnings: string[] }
  | { ok: false; problems: string[]; warnings: string[] };

/**
 * Reads every setting through `read` (relative paths resolve against `cwd`).
 * `present` lists every environment variable's name when the caller may
 * list them (see `setting_names.ts` for what is checked without it).
 *
 * @example
 * ```ts
 * import assert from "node:assert";
 * const env: Record<string, string> = { SOURCEGRAPH_LOG_LEVEL: "loud", SOURCEGRAPH_DATTA: "/d" };
 * const result = readSettings((name) => env[name], "/srv/project", { present: Object.keys(env) });
 * assert.ok(!result.ok);
 * const level = 'SOURCEGRAPH_LOG_LEVEL must be info or debug (got "loud")';
 * assert.deepStrictEqual(result.problems, [level]);
 * assert.strictEqual(result.warnings.length, 1); // SOURCEGRAPH_DATTA names no setting
 * const defaults = readSettings(() => undefined, "/srv/project");
 * assert.ok(defaults.ok);
 * assert.strictEqual(defaults.settings.dataDir, "/srv/project/.sourcegraph");
 * ```
 */
export function readSettings(
  read: (name: string) => string | undefined,
  cwd: string,
  options: { present?: readonly string[] } = {},
): SettingsResult {
  const reader = new SettingReader(read);
  const serviceToken = reader.value("SOURCEGRAPH_API_TOKEN");
  if (serviceToken !== undefined && serviceToken.length < 32) {
    reader.problems.push("SOURCEGRAPH_API_TOKEN must be at least 32 characters");
  }
  const publicUrl = reader.value("SOURCEGRAPH_PUBLIC_URL");
  if (publicUrl !== undefined && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(publicUrl)) {
    reader.problems.push(`SOURCEGRAPH_PUBLIC_URL must be an http(s) URL (got ${quote(publicUrl)})`);
  }
  const level = reader.value("SOURCEGRAPH_LOG_LEVEL") ?? "info";
  if (level !== "info" && level !== "debug") {
    reader.problems.push(`SOURCEGRAPH_LOG_LEVEL must be info or debug (got ${quote(level)})`);
  }
  const allowedHosts = readAllowedHosts(reader);
  const oauthIssuer = readOAuthIssuer(reader);
  const database = readDatabaseSettings(reader, cwd);
  const connections = readConnectionSettings(reader);
  const plugins = readPluginSettings((name) => reader.value(name));
  reader.problems.push(...plugins.problems);
  const settings: ServiceSettings = {
    dataDir: resolve(cwd, reader.value("SOURCEGRAPH_DATA") ?? ".sourcegraph"),
    configPath: resolve(cwd, reader.value("SOURCEGRAPH_CONFIG") ?? "sourcegraph.toml"),
    serviceToken,
    publicUrl: publicUrl?.replace(/\/+$/, ""),
    port: reader.integer("SOURCEGRAPH_PORT", DEFAULT_PORT, [0, 65_535]),
    publicRead: reader.boolean("SOURCEGRAPH_PUBLIC_READ", true),
    oauthClientDocuments: reader.boolean("SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS", false),
    oauthClientDocumentsPrivate: reader.boolean(
      "SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS_PRIVATE",
      false,
    ),
    ...(oauthIssuer ? { oauthIssuer } : {}),
    searchIndex: reader.boolean("SOURCEGRAPH_SEARCH_INDEX", true),
    ...readIndexSettings(reader),
    anonymousPerMinute: reader.integer("SOURCEGRAPH_ANONYMOUS_PER_MINUTE", 600, [1, 1_000_000]),
    anonymousConcurrency: reader.integer("SOURCEGRAPH_ANONYMOUS_CONCURRENCY", 4, [1, 10_000]),
    allowedHosts,
    syncMinutes: reader.integer("SOURCEGRAPH_SYNC_MINUTES", 5, [1, 10_080]),
    localCheckMs: reader.duration("SOURCEGRAPH_LOCAL_CHECK", 2_000, 3_600_000),
    defaultRetain: reader.integer("SOURCEGRAPH_DEFAULT_RETAIN", 20, [1, 10_000]),
    debug: level === "debug",
    stopGraceMs: reader.duration("SOURCEGRAPH_STOP_GRACE", 10_000, 600_000),
    markdownTimeoutMs: reader.duration("SOURCEGRAPH_MARKDOWN_TIMEOUT", 2_000, 60_000),
    connections,
    plugins: plugins.settings,
    ...(database ? { database } : {}),
  };
  const warnings = unknownSettingWarnings(reader.known, { present: options.present, read });
  const problems = reader.problems;
  return problems.length > 0 ? { ok: false, problems, warnings } : { ok: true, settings, warnings };
}

// The search index's settings: the builder's bounds and how builds share the machine.
function readIndexSettings(reader: SettingReader): Pick<
  ServiceSettings,
  | "indexBuildPostingsMib"
  | "indexCacheMib"
  | "indexBuildIdleMs"
  | "indexBuildSliceMs"
  | "symbolBudgetMs"
> {
  return {
    indexBuildPostingsMib: reader.integer(
      "SOURCEGRAPH_INDEX_BUILD_POSTINGS_MIB",
      DEFAULT_HELD_POSTINGS_MIB,
      [8, 65_536],
    ),
    indexCacheMib: reader.integer("SOURCEGRAPH_INDEX_CACHE_MIB", DEFAULT_INDEX_CACHE_MIB, [
      16,
      65_536,
    ]),
    indexBuildIdleMs: reader.duration(
      "SOURCEGRAPH_INDEX_BUILD_IDLE",
      DEFAULT_BUILD_IDLE_MS,
      24 * 3_600_000,
    ),
    indexBuildSliceMs: reader.duration(
      "SOURCEGRAPH_INDEX_BUILD_SLICE",
      DEFAULT_BUILD_SLICE_MS,
      24 * 3_600_000,
    ),
    symbolBudgetMs: reader.duration(
      "SOURCEGRAPH_SYMBOL_BUDGET",
      DEFAULT_SYMBOL_BUDGET_MS,
      24 * 3_600_000,
    ),
  };
}

// The URL is checked by shape only and never echoed: it carries a password.
function readDatabaseSettings(reader: SettingReader, cwd: string): DatabaseSettings | undefined {
  const url = reader.value("SOURCEGRAPH_DATABASE_URL");
  const keyFile = reader.value("SOURCEGRAPH_CREDENTIAL_KEY_FILE");
  // Known settings even where unused: a replica's settings without a database are ignored.
  for (const name of REPLICA_SETTING_NAMES) reader.known.add(name);
  if (url === undefined) {
    if (keyFile !== undefined) {
      reader.problems.push(
        "SOURCEGRAPH_CREDENTIAL_KEY_FILE is set but SOURCEGRAPH_DATABASE_URL is not; the single " +
          "process keeps credentials in its data folder (unset the key file, or set the database)",
      );
    }
    return undefined;
  }
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed === null || !/^postgres(ql)?:$/.test(parsed.protocol) || parsed.hostname === "") {
    reader.problems.push(
      "SOURCEGRAPH_DATABASE_URL must be a postgres://user:password@host:port/database URL " +
        "(the value is not shown: it may hold a password)",
    );
    return undefined;
  }
  if (keyFile === undefined) {
    reader.problems.push(
      "SOURCEGRAPH_CREDENTIAL_KEY_FILE must name the credential key file when " +
        "SOURCEGRAPH_DATABASE_URL is set (create one with " +
        "`openssl rand -base64 32 > FILE && chmod 600 FILE`, the same file on every replica)",
    );
    return undefined;
  }
  const cluster = readReplicaSettings(reader);
  const reconnectMaxWaitMs = reader.duration(
    "SOURCEGRAPH_RECONNECT_MAX_WAIT",
    RECONNECT_CAP_MS,
    60_000,
  );
  return cluster === null
    ? undefined
    : { url, credentialKeyFile: resolve(cwd, keyFile), cluster, reconnectMaxWaitMs };
}

const REPLICA_SETTING_NAMES = [
  "SOURCEGRAPH_REPLICA_NAME",
  "SOURCEGRAPH_INTERNAL_URL",
  "SOURCEGRAPH_INTERNAL_LISTEN",
  "SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS",
  "SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS_PER_ADDRESS",
  "SOURCEGRAPH_HEARTBEAT_INTERVAL",
  "SOURCEGRAPH_HEARTBEAT_EXPIRY",
  "SOURCEGRAPH_REPLICATION",
  "SOURCEGRAPH_RECONNECT_MAX_WAIT",
];

function readReplicaSettings(reader: SettingReader): ReplicaSettings | null {
  const name = reader.value("SOURCEGRAPH_REPLICA_NAME");
  const url = reader.value("SOURCEGRAPH_INTERNAL_URL");
  const listen = reader.value("SOURCEGRAPH_INTERNAL_LISTEN");
  const heartbeatMs = reader.duration("SOURCEGRAPH_HEARTBEAT_INTERVAL", 2_000, 60_000);
  const expiryMs = reader.duration("SOURCEGRAPH_HEARTBEAT_EXPIRY", 3 * heartbeatMs, 600_000);
  const replication = reader.integer("SOURCEGRAPH_REPLICATION", 2, [1, 16]);
  const maxConnections = reader.integer(
    "SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS",
    DEFAULT_INTERNAL_MAX_CONNECTIONS,
    [1, 100_000],
  );
  const internalLimits = {
    maxConnections,
    maxConnectionsPerAddress: reader.integer(
      "SOURCEGRAPH_INTERNAL_MAX_CONNECTIONS_PER_ADDRESS",
      defaultInternalPerAddressCap(maxConnections),
      [1, 100_000],
    ),
  };
  const before = reader.problems.length;
  if (name === undefined || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(name)) {
    reader.problems.push(
      "SOURCEGRAPH_REPLICA_NAME must name this replica, unique in the cluster " +
        `(lower-case letters, digits and dashes, up to 63${name ? `; got ${quote(name)}` : ""})`,
    );
  }
  const internal = url === undefined ? null : hostAndPort(url);
  if (internal === null) {
    reader.problems.push(
      "SOURCEGRAPH_INTERNAL_URL must be the http(s)://host:port other replicas reach this " +
        `one's internal listener at${url ? ` (got ${quote(url)})` : ""}`,
    );
  }
  const bind = listen === undefined ? internal : hostAndPort(`http://${listen}`);
  if (bind === null && listen !== undefined) {
    reader.problems.push(`SOURCEGRAPH_INTERNAL_LISTEN must be host:port (got ${quote(listen)})`);
  }
  if (expiryMs <= heartbeatMs) {
    reader.problems.push("SOURCEGRAPH_HEARTBEAT_EXPIRY must be longer than the heartbeat interval");
  }
  if (reader.problems.length > before || internal === null || bind === null) return null;
  return {
    replicaName: name!,
    internalUrl: url!.replace(/\/+$/, ""),
    internalListen: bind,
    internalLimits,
    heartbeatMs,
    expiryMs,
    replication,
  };
}

// The host and explicit port of an http(s) URL without a path, or null.
function hostAndPort(text: string): { hostname: string; port: number } | null {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(parsed.protocol) || parsed.port === "" || parsed.username !== "") {
    return null;
  }
  if (parsed.pathname !== "/" || parsed.search !== "" || parsed.hash !== "") return null;
  return { hostname: parsed.hostname.replace(/^\[|\]$/g, ""), port: Number(parsed.port) };
}

// The external issuer: both URLs or neither; https, or http on a loopback address.
function readOAuthIssuer(reader: SettingReader): OAuthIssuerSettings | undefined {
  const issuer = reader.value("SOURCEGRAPH_OAUTH_ISSUER");
  const jwksUrl = reader.value("SOURCEGRAPH_OAUTH_JWKS_URL");
  const audience = reader.value("SOURCEGRAPH_OAUTH_AUDIENCE");
  const scopeClaim = reader.value("SOURCEGRAPH_OAUTH_SCOPE_CLAIM") ?? "scope";
  if (issuer === undefined && jwksUrl === undefined) {
    if (audience !== undefined || scopeClaim !== "scope") {
      reader.problems.push(
        "SOURCEGRAPH_OAUTH_AUDIENCE and SOURCEGRAPH_OAUTH_SCOPE_CLAIM need SOURCEGRAPH_OAUTH_ISSUER",
      );
    }
    return undefined;
  }
  const problems = reader.problems.length;
  for (const [name, value] of [["ISSUER", issuer], ["JWKS_URL", jwksUrl]] as const) {
    if (value === undefined) {
      reader.problems.push(
        "SOURCEGRAPH_OAUTH_ISSUER and SOURCEGRAPH_OAUTH_JWKS_URL must be set together",
      );
    } else if (!serverUrl(value)) {
      reader.problems.push(
        `SOURCEGRAPH_OAUTH_${name} must be an https URL, or http on a loopback address, ` +
          `without credentials or fragment (got ${quote(value)})`,
      );
    }
  }
  if (audience !== undefined && !/^[\x21-\x7e]{1,2000}$/.test(audience)) {
    reader.problems.push(
      `SOURCEGRAPH_OAUTH_AUDIENCE must be one URI or name (got ${quote(audience)})`,
    );
  }
  if (!/^[A-Za-z0-9_.:-]{1,64}$/.test(scopeClaim)) {
    reader.problems.push(
      `SOURCEGRAPH_OAUTH_SCOPE_CLAIM must be a claim name (got ${quote(scopeClaim)})`,
    );
  }
  if (["true", "1"].includes(reader.value("SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS") ?? "")) {
    reader.problems.push(
      "SOURCEGRAPH_OAUTH_CLIENT_DOCUMENTS is for the service's own authorization server; " +
        "with SOURCEGRAPH_OAUTH_ISSUER clients register with that issuer (unset one of them)",
    );
  }
  if (reader.problems.length > problems) return undefined;
  return { issuer: issuer!, jwksUrl: jwksUrl!, ...(audience ? { audience } : {}), scopeClaim };
}

// An https URL, or http on a loopback address; no credentials, no fragment.
function serverUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (value.length > 2_000 || value.includes("#") || url.username !== "" || url.password !== "") {
    return false;
  }
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

function readAllowedHosts(reader: SettingReader): string[] {
  const hosts = (reader.value("SOURCEGRAPH_ALLOWED_HOSTS") ?? "").split(",")
    .map((host) => host.trim())
    .filter((host) => host !== "");
  for (const host of hosts) {
    if (!/^[A-Za-z0-9.-]{1,253}$/.test(host) && !/^\[[0-9A-Fa-f:.]{2,45}\]$/.test(host)) {
      reader.problems.push(
        `SOURCEGRAPH_ALLOWED_HOSTS must list host names without ports (got ${quote(host)})`,
      );
    }
  }
  return hosts;
}

function readConnectionSettings(reader: SettingReader): ConnectionSettings {
  const defaults = DEFAULT_CONNECTION_SETTINGS;
  const bytes: [number, number] = [1024, 64 * 1024 * 1024];
  const maxConnections = reader.integer(
    "SOURCEGRAPH_MAX_CONNECTIONS",
    defaults.maxConnections,
    [1, 100_000],
  );
  return {
    headerTimeoutMs: reader.duration(
      "SOURCEGRAPH_HEADER_TIMEOUT",
      defaults.headerTimeoutMs,
      600_000,
    ),
    headerMinRate: reader.integer(
      "SOURCEGRAPH_HEADER_MIN_RATE",
      defaults.headerMinRate,
      [0, 1_000_000_000],
    ),
    idleTimeoutMs: reader.duration("SOURCEGRAPH_IDLE_TIMEOUT", defaults.idleTimeoutMs, 3_600_000),
    bodyTimeoutMs: reader.duration("SOURCEGRAPH_BODY_TIMEOUT", defaults.bodyTimeoutMs, 600_000),
    maxConnections,
    maxConnectionsPerAddress: reader.integer(
      "SOURCEGRAPH_MAX_CONNECTIONS_PER_ADDRESS",
      defaultPerAddressCap(maxConnections),
      [1, 100_000],
    ),
    maxBodyBytes: reader.integer("SOURCEGRAPH_MAX_BODY_BYTES", defaults.maxBodyBytes, bytes),
    maxMcpBodyBytes: defaults.maxMcpBodyBytes,
    maxAnonymousBodyBytes: reader.integer(
      "SOURCEGRAPH_MAX_ANONYMOUS_BODY_BYTES",
      defaults.maxAnonymousBodyBytes,
      bytes,
    ),
  };
}

// Typed reads of single variables; each bad value adds one line to
// `problems` and yields the default, so every bad value is reported at once.
class SettingReader {
  readonly problems: string[] = [];
  /** Every name read (the rest of the set `SOURCEGRAPH_*` names are unknown). */
  readonly known = new Set<string>();
  #read: (name: string) => string | undefined;

  constructor(read: (name: string) => string | undefined) {
    this.#read = read;
  }

  value(name: string): string | undefined {
    this.known.add(name);
    const raw = this.#read(name);
    return raw === undefined || raw === "" ? undefined : raw;
  }

  integer(name: string, fallback: number, [min, max]: [number, number]): number {
    const raw = this.value(name);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(
        `${name} must be a whole number from ${min} to ${max} (got ${quote(raw)})`,
      );
      return fallback;
    }
    return parsed;
  }

  duration(name: string, fallbackMs: number, maxMs: number): number {
    const raw = this.value(name);
    if (raw === undefined) return fallbackMs;
    const ms = parseDuration(raw);
    if (ms === null || ms < 1 || ms > maxMs) {
      this.problems.push(
        `${name} must be a duration such as 10s or 1500ms, at most ${maxMs / 1000}s (got ${
          quote(raw)
        })`,
      );
      return fallbackMs;
    }
    return ms;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.value(name);
    if (raw === undefined) return fallback;
    if (raw === "true" || raw === "1") return true;
    if (raw === "false" || raw === "0") return false;
    this.problems.push(`${name} must be true or false (got ${quote(raw)})`);
    return fallback;
  }
}

function quote(raw: string): string {
  return JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw);
}
