import { definedNames } from "../../shared/defined_names.ts";
import { assertEquals } from "../support/assert.ts";

Deno.test("defined names: definitions per language family, not mere uses", () => {
  const cases: [string, string, string[]][] = [
    [
      "a.ts",
      "export function parseHttpRequest(raw: string) {\n  return parseHttpRequest(raw);\n}",
      [
        "parseHttpRequest",
      ],
    ],
    ["a.ts", "export class QuicServerConfig {\n  private build(port: number): void {\n", [
      "QuicServerConfig",
      "build",
    ]],
    ["a.ts", "export interface Options {}\nexport const DEFAULT_LIMIT = 5;\ntype Mode = 1;", [
      "Options",
      "DEFAULT_LIMIT",
      "Mode",
    ]],
    ["a.py", "class Reader:\n    async def read_all(self):\n        read_all()\n", [
      "Reader",
      "read_all",
    ]],
    ["a.rs", "pub struct Server;\nimpl Display for Server {\npub fn serve_once() {}\n", [
      "Server",
      "Server",
      "serve_once",
    ]],
    ["a.go", "func (s *Server) HandleConn(c net.Conn) {\ntype Config struct {\n", [
      "HandleConn",
      "Config",
      "Config",
    ]],
    ["a.java", "public final class Cache {\n  public static int hitRate(int x) {\n", [
      "Cache",
      "hitRate",
    ]],
    ["a.c", "static int strbuf_addf(struct strbuf *sb,\n{\n\tstrbuf_addf(sb, x);\n", [
      "strbuf_addf",
    ]],
    ["a.c", "struct object_id {\n#define MAX_PATH 4096\nint use(void);\n", [
      "object_id",
      "MAX_PATH",
    ]],
    ["a.sh", "setup_repo () {\n\tsetup_repo\n}", ["setup_repo"]],
    ["a.md", "# Install and configure\ntext\n## Root rules ##\n", [
      "Install and configure",
      "Root rules",
    ]],
    ["a.adoc", "== Configuration\n[[cfg-core]]\n", ["Configuration", "cfg-core"]],
    ["a.json", '{"name": 1}', []],
  ];
  for (const [path, text, names] of cases) assertEquals(definedNames(path, text), names, text);
});
