/**
 * `/sourcegraph/plugins/llms.txt`: the contract a repository plugin author
 * (or the agent writing the plugin) needs, as plain text.
 *
 * @module
 */

/** The text served at `/sourcegraph/plugins/llms.txt`. */
export const PLUGIN_CONTRACT = `# Context Source Graph: repository plugins (JSON ABI 2)

A plugin is a WebAssembly module committed in the repository it enriches. After a
read or read_many over MCP, the service runs the selected plugins on exactly what
was returned and appends their text to the answer. Plugins never change the base
read, never enrich search, and cannot widen anyone's access.

## Placement and discovery

- Name the module <name>.sourcegraph.wasm (name: a-z, 0-9 and "-", up to 64
  characters) and commit it as a regular file anywhere in the repository (in a
  monorepo, inside a registered path group). Not through Git LFS, a symlink or a
  submodule.
- Discovery is recursive at each synced commit. A plugin applies to its folder
  and everything below it; for one name the nearest ancestor folder wins (a child
  plugin overrides its parent, including turning default_enabled off); plugins of
  different names apply together.
- It takes effect at the first synced commit that contains it; older commits keep
  their own plugins.
- See what discovery found on the repository's Plugins tab
  (/sourcegraph/<repo>/-/plugins?rev=<sha>) or with the MCP tool
  availability(repo, revision, include_plugins: true). Discovery reads static
  information only: it never runs a plugin.

## Metadata (custom section "sourcegraph.plugin.v1", embedded in the module)

{
  "name": "related-content",
  "title": "Related content",
  "description": "Attach related repository documents to a read.",
  "version": "1.0.0",
  "abi_version": 2,
  "operations": ["read", "read_many"],
  "default_enabled": true,
  "input_schema": {"type": "object", "properties": {}}
}

- abi_version must be 2; anything else is reported as incompatible and the read
  is served without the plugin.
- Automatic selection runs a plugin only when default_enabled is exactly true and
  operations lists the current operation. input_schema is shown, never fetched.
- A plugin.json file beside the module has no effect: the section must be inside
  the binary. Unknown fields are ignored; all metadata is shown as untrusted text.

## Selection (per MCP connection and per call)

- URL /sourcegraph/mcp?plugins=auto (or no parameter): default-enabled plugins.
- ?plugins=off: no plugin runs on this connection, whatever a call asks.
- ?plugins=a,b: those plugins when a call names none.
- Tool argument plugins: [] turns enrichment off for the call;
  plugins: [{"name": "related-content", "args": {}}] selects exactly those, with
  args passed through to the plugin (the host does not interpret them).

## Exports

memory
alloc(length: i32) -> i32
dealloc(pointer: i32, length: i32)
enrich(pointer: i32, length: i32) -> i64

Integers are unsigned. A packed i64 holds the pointer in its high 32 bits and the
length in its low 32 bits. The host writes the UTF-8 JSON input into a buffer from
alloc and calls enrich, which returns another buffer it allocated (never an alias
of the input). The host copies the output, then deallocates both with their exact
lengths. alloc(0) must return a non-zero pointer. No WASI: a module that imports
anything beyond the host functions below does not load.

## Input

{
  "abi_version": 2,
  "operation": "read",
  "repository": "example/knowledge",
  "commit": "<full SHA>",
  "root": "packages/docs",
  "args": {},
  "files": [{
    "item_id": "read-0",
    "path": "knowledge/example.md",
    "repository_path": "packages/docs/knowledge/example.md",
    "start_line": 2,
    "end_line": 8,
    "content": "the text actually returned",
    "truncated": false,
    "has_more": true,
    "next_start_line": 9
  }]
}

- root is the plugin's folder ("" at the top); files[].path and every host read
  are relative to it; repository_path keeps the full path.
- start_line and end_line are the range actually returned, not the one asked for.
  has_more may be null when unknown. args defaults to {}.
- item_id is read-0, read-1, ... in the order of the original request; failed
  items and grouping by plugin folder do not renumber. A read_many is grouped by
  plugin folder: each plugin sees only the items below its folder.

## Output

{"attachments": [{"item_id": "read-0", "text": "references:\\n- <link>"}, {"text": "for the whole batch"}]}

- With item_id, the text follows that item's body after a blank line; without,
  it becomes a final block of its own. Nothing to add: {"attachments": []}.
- text is any UTF-8 (Markdown, YAML, JSON...). The host does not parse, label,
  deduplicate or merge it. Order: selection order, then plugin folder order, then
  array order.
- An item_id that is unknown, belongs to another folder, or is not a string is
  reported as a diagnostic; the plugin's other attachments are kept.
- All attachments of one request total at most 2 MiB (an attachment over the
  budget is dropped whole and reported, never cut); one plugin's output is at
  most OUTPUT_BYTES.
- A failing plugin never replaces or fails the base read: its diagnostics are
  shown separately. Everything a plugin returns is untrusted repository data.

## Host imports (module "sourcegraph")

read_file(path_pointer: i32, path_length: i32) -> i64
last_error() -> i64
read_files(paths_pointer: i32, paths_length: i32) -> i64

- read_file returns the file's raw bytes in a buffer the host allocated with the
  guest's alloc (the guest deallocates it); 0 means failure and last_error()
  returns a UTF-8 message. An empty file still returns a non-zero pointer.
- read_files (optional) takes a UTF-8 JSON array of paths and returns
  little-endian binary: u32 count, then per path u32 status (0 file, 1 error),
  u32 length and the bytes (or the UTF-8 error). A malformed request returns 0.
- Paths are plain relative paths inside the plugin's folder, read at the same
  repository and SHA, within the registered scope. There is no network, process,
  file writing, environment, credentials or cross-repository access.

## Links to this service

Pin links to the commit you were given: /sourcegraph/<repo>/-/blob/<sha>/<path>#L2-L4
opens the file at that SHA with lines 2 to 4 highlighted (#L2 for one line);
/sourcegraph/<repo>/blob/<sha>/<path> redirects there. A branch instead of a SHA
redirects to the SHA it resolves to at the time of the visit.

## Limits (environment variables SOURCEGRAPH_PLUGINS_*, defaults)

DISABLED (unset; 1 turns enrichment off), TIMEOUT 10s (one enrichment, all
plugins together), MEMORY_MIB 256 (linear memory per instance), ARTIFACT_BYTES 32
MiB, METADATA_BYTES 256 KiB, FILE_BYTES 32 MiB, READ_BYTES 128 MiB, OUTPUT_BYTES 2
MiB and READ_CALLS 1024 (per plugin run), CONCURRENCY 8 (PLUGIN_BUSY when full),
CACHE_ENTRIES 16 (compiled modules), IDLE_INSTANCES 8.

Instances are reused: clear per-request state on every call; caching parsed data
of the same commit is fine. A trap, timeout or invalid output retires the instance.
`;
