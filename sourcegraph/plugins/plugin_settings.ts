/**
 * The SOURCEGRAPH_PLUGINS_* settings with their defaults. Integers must be at
 * least 1; TIMEOUT is a Go-style duration (`10s`, `1500ms`, `2m`);
 * MEMORY_MIB is at most 4096. An invalid value fails start-up with
 * "invalid plugin setting X: must be …" naming the form it must have.
 *
 * @module
 */

/** The plugin host's limits. */
export interface PluginSettings {
  disabled: boolean;
  timeoutMs: number;
  memoryMib: number;
  artifactBytes: number;
  metadataBytes: number;
  fileBytes: number;
  readBytes: number;
  outputBytes: number;
  readCalls: number;
  concurrency: number;
  cacheEntries: number;
  idleInstances: number;
}

const MIB = 1024 * 1024;

/** The defaults. */
export const DEFAULT_PLUGIN_SETTINGS: PluginSettings = {
  disabled: false,
  timeoutMs: 10_000,
  memoryMib: 256,
  artifactBytes: 32 * MIB,
  metadataBytes: 256 * 1024,
  fileBytes: 32 * MIB,
  readBytes: 128 * MIB,
  outputBytes: 2 * MIB,
  readCalls: 1024,
  concurrency: 8,
  cacheEntries: 16,
  idleInstances: 8,
};

const INTEGERS: [keyof PluginSettings, string][] = [
  ["memoryMib", "MEMORY_MIB"],
  ["artifactBytes", "ARTIFACT_BYTES"],
  ["metadataBytes", "METADATA_BYTES"],
  ["fileBytes", "FILE_BYTES"],
  ["readBytes", "READ_BYTES"],
  ["outputBytes", "OUTPUT_BYTES"],
  ["readCalls", "READ_CALLS"],
  ["concurrency", "CONCURRENCY"],
  ["cacheEntries", "CACHE_ENTRIES"],
  ["idleInstances", "IDLE_INSTANCES"],
];

/**
 * Reads the settings through `read`. Each bad value is one problem line,
 * `invalid plugin setting X: <the form it must have> (got "…")`, and the
 * default is kept for it.
 */
export function readPluginSettings(
  read: (name: string) => string | undefined,
): { settings: PluginSettings; problems: string[] } {
  const settings = { ...DEFAULT_PLUGIN_SETTINGS };
  const problems: string[] = [];
  const bad = (suffix: string, form: string, raw: string) =>
    problems.push(
      `invalid plugin setting SOURCEGRAPH_PLUGINS_${suffix}: must be ${form} (got ${
        JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw)
      })`,
    );
  const disabled = read("SOURCEGRAPH_PLUGINS_DISABLED");
  if (disabled !== undefined && disabled !== "") {
    if (disabled !== "1" && disabled !== "0") bad("DISABLED", "1 or 0", disabled);
    else settings.disabled = disabled === "1";
  }
  const timeout = read("SOURCEGRAPH_PLUGINS_TIMEOUT");
  if (timeout !== undefined && timeout !== "") {
    const ms = parseDuration(timeout);
    if (ms === null || ms < 1) bad("TIMEOUT", "a duration such as 10s or 1500ms", timeout);
    else settings.timeoutMs = ms;
  }
  for (const [key, suffix] of INTEGERS) {
    const raw = read(`SOURCEGRAPH_PLUGINS_${suffix}`);
    if (raw === undefined || raw === "") continue;
    const value = Number(raw);
    const max = key === "memoryMib" ? 4096 : Number.MAX_SAFE_INTEGER;
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1 || value > max) {
      bad(
        suffix,
        max === 4096 ? "a whole number from 1 to 4096" : "a whole number of at least 1",
        raw,
      );
    } else {
      (settings[key] as number) = value;
    }
  }
  return { settings, problems };
}

/** Parses a Go-style duration into milliseconds, or null. */
export function parseDuration(text: string): number | null {
  const units: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    "µs": 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index !== at) return null;
    total += Number(match[1]) * units[match[2]];
    at = match.index + match[0].length;
  }
  return at === text.length && at > 0 ? Math.round(total) : null;
}
