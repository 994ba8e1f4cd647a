/**
 * The pages' static files (style sheet, script, icon) and the plugin
 * author's contract, cacheable by anyone.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { ICON, SCRIPT, STYLE_SHEET } from "../assets.ts";
import type { PageEnv } from "../page_responses.tsx";
import { PLUGIN_CONTRACT } from "../plugin_contract.ts";

/** The static routes, to mount at the pages' root. */
export function staticRoutes(): Hono<PageEnv> {
  const app = new Hono<PageEnv>();
  app.get("/-/static/app.css", (c) => asset(c, STYLE_SHEET, "text/css; charset=utf-8"));
  app.get("/-/static/app.js", (c) => asset(c, SCRIPT, "text/javascript; charset=utf-8"));
  app.get("/-/static/icon.svg", (c) => asset(c, ICON, "image/svg+xml"));
  app.get("/plugins/llms.txt", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.text(PLUGIN_CONTRACT);
  });
  return app;
}

function asset(c: Context<PageEnv>, body: string, type: string): Response {
  c.header("Cache-Control", "public, max-age=3600");
  c.header("Content-Type", type);
  return c.body(body);
}
