/**
 * "Sync now" on a repository's page: a signed-in person's POST form (with the
 * session's CSRF token) starts a sync of a repository they may see, then
 * goes back to the repository's page. A sync already running or waiting is
 * not queued again.
 *
 * @module
 */

import { Hono } from "hono";
import { SourcegraphError } from "../../errors.ts";
import type { PageEdge } from "../../http/edge_env.ts";
import type { RepositoryService } from "../../service/repository_service.ts";
import type { ControlStore, RepositoryRecord } from "../../store/control_store.ts";
import { repositoryUrl } from "../../render/page_urls.ts";
import { type PageEnv, redirect } from "../page_responses.tsx";
import { sameToken } from "../sessions.ts";

/** What the sync route is built with. */
export interface SyncRouteOptions {
  store: ControlStore;
  edge: PageEdge;
  /** Starts a sync of `repo` in the background; false when one is already under way. */
  syncNow: (repo: RepositoryRecord) => boolean;
}

/** `POST /-/sync` (form fields `repo` and `csrf`), to mount at the pages' root. */
export function syncRoutes(service: RepositoryService, options: SyncRouteOptions): Hono<PageEnv> {
  const app = new Hono<PageEnv>();
  app.post("/-/sync", async (c) => {
    const form = await options.edge.readForm(c);
    const session = c.get("session");
    if (session === null) {
      throw new SourcegraphError("AUTHENTICATION_REQUIRED", "sign in to sync a repository");
    }
    if (!sameToken(form.get("csrf"), session.csrf)) {
      throw new SourcegraphError("CSRF_TOKEN_INVALID", "the form expired; reload the page");
    }
    const repo = options.store.repository(form.get("repo") ?? "");
    // A repository the viewer may not see answers exactly as a missing one.
    if (repo === null || !service.visible(c.get("caller"), repo)) {
      throw new SourcegraphError("REPOSITORY_NOT_FOUND", "no such repository");
    }
    options.syncNow(repo);
    return redirect(c, repositoryUrl(repo.name), 303);
  });
  return app;
}
