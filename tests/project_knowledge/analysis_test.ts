import { assert, assertEquals } from "../support/assert.ts";
import { DatabaseSync } from "node:sqlite";
import {
  analyzeQuery,
  analyzeText,
  ftsMatchExpression,
  MAX_QUERY_TERMS,
  MAX_TERM_LENGTH,
} from "../../project_knowledge/analysis.ts";

Deno.test("identifier forms share their parts and their whole", () => {
  const expected = ["parse", "http", "request", "parsehttprequest"];
  assertEquals(analyzeText("parseHTTPRequest"), expected);
  assertEquals(analyzeText("parse_http_request"), expected);
  assertEquals(analyzeText("parse-http-request"), expected);
  assertEquals(analyzeText("ParseHttpRequest"), expected);
  assertEquals(analyzeText("PARSE_HTTP_REQUEST"), expected);
  assertEquals(analyzeQuery("parse http request"), ["parse", "http", "request"]);
});

Deno.test("identifier splitting keeps digits on their word and drops punctuation", () => {
  assertEquals(analyzeText("base64Encode"), ["base64", "encode", "base64encode"]);
  assertEquals(analyzeText("utf8"), ["utf8"]);
  assertEquals(analyzeText("__init__"), ["init"]);
  assertEquals(analyzeText("os.path.join(a, b)"), ["os", "path", "join", "a", "b"]);
  assertEquals(analyzeText("HTTPServer2 404"), ["http", "server2", "httpserver2", "404"]);
  assertEquals(analyzeText("Straße café"), ["straße", "café"]);
});

Deno.test("CJK runs become bigrams; a lone character stays a unigram", () => {
  assertEquals(analyzeText("项目知识"), ["项目", "目知", "知识"]);
  assertEquals(analyzeText("知"), ["知"]);
  assertEquals(analyzeText("搜索parseHTTPRequest函数"), [
    "搜索",
    "parse",
    "http",
    "request",
    "parsehttprequest",
    "函数",
  ]);
  assertEquals(analyzeText("カタカナ と 한국어"), ["カタ", "タカ", "カナ", "と", "한국", "국어"]);
  assertEquals(analyzeQuery("项目 知识"), ["项目", "知识"]);
});

Deno.test("queries are deduplicated, capped, and never carry FTS5 syntax", () => {
  assertEquals(analyzeQuery("a a b A"), ["a", "b"]);
  const many = Array.from({ length: 100 }, (_, i) => `word${i}`).join(" ");
  assertEquals(analyzeQuery(many).length, MAX_QUERY_TERMS);
  assertEquals(analyzeText("x".repeat(500)), ["x".repeat(MAX_TERM_LENGTH)]);
  for (
    const hostile of ['"', "NEAR(a b)", "a AND b OR NOT c", "col:term", "^start*", "\0", "🚀🎉"]
  ) {
    for (const term of analyzeQuery(hostile)) assert(/^[\p{L}\p{N}\p{M}]+$/u.test(term), term);
  }
  assertEquals(analyzeQuery("!@#$%^&*()".repeat(1000)), []);
  assertEquals(ftsMatchExpression(["parse", "项目"]), '"parse" OR "项目"');
});

Deno.test("analysed terms through FTS5 match every identifier form and CJK bigram", () => {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec("CREATE VIRTUAL TABLE t USING fts5(terms, tokenize = 'unicode61 remove_diacritics 0')");
    const insert = db.prepare("INSERT INTO t(rowid, terms) VALUES (?, ?)");
    const docs = [
      "def parseHTTPRequest(x):",
      "fn parse_http_request()",
      "parse-http-request",
      "项目知识库",
      "unrelated",
    ];
    docs.forEach((doc, i) => insert.run(i + 1, analyzeText(doc).join(" ")));
    const search = (query: string) =>
      db.prepare("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t), rowid")
        .all(ftsMatchExpression(analyzeQuery(query)))
        .map((row) => Number(row.rowid));
    assertEquals(search("parse http request").sort(), [1, 2, 3]);
    assertEquals(search("parseHTTPRequest").sort(), [1, 2, 3]);
    assertEquals(search("parse_http_request").sort(), [1, 2, 3]);
    assertEquals(search("项目"), [4]);
    assertEquals(search("知识"), [4]);
    const hostile = ['"', "NEAR(", "a\0b", "*", "x OR", "(((", "'; DROP TABLE t; --", "🚀"];
    for (const query of hostile) {
      const terms = analyzeQuery(query);
      if (terms.length > 0) search(query);
    }
  } finally {
    db.close();
  }
});
