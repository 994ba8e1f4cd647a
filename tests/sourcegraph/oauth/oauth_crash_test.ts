// SIGKILL of the running service while a client rotates its refresh token
// as fast as it can (each rotation issues an access and a refresh token and
// uses the old one up in the control store). After every kill the service
// starts again on the same data folder, and the last published state holds:
// every token the client saw before the one in flight is refused; the one in
// flight either works exactly once or is refused cleanly (400
// invalid_grant, never a server error); never do the old and the new token
// both work; the last access token the client received is valid exactly
// while its grant is.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { storeOAuthServer } from "../../../sourcegraph/oauth/oauth_server.ts";
import { SqliteControlStore } from "../../../sourcegraph/store/sqlite_control_store.ts";
import { assert, assertEquals } from "../../support/assert.ts";
import { crashPoints } from "../../support/crash_points.ts";
import { createRepo, removeDir, tempDir } from "../../support/git_repo.ts";
import { freePort, type RunningService, startService } from "../../support/sourcegraph_service.ts";

const TOKEN = "k".repeat(40);
const REDIRECT = "http://127.0.0.1:47123/callback";
const KILLS = 12;
// Clients rotating at once: at the kill some requests are at every stage of the token endpoint.
const CLIENTS = 6;

interface Grant {
  clientId: string;
  refreshToken: string;
  accessToken: string;
}

// A grant written straight into the control store, as a sign-in and consent would leave it.
async function seedGrant(dataDir: string, resource: string): Promise<Grant> {
  await Deno.mkdir(dataDir, { recursive: true });
  const store = new SqliteControlStore(join(dataDir, "control.sqlite3"));
  try {
    const oauth = storeOAuthServer(store, { serviceToken: true });
    const client = await oauth.register({ clientName: "Crash", redirectUris: [REDIRECT] });
    const verifier = `v${crypto.randomUUID()}${crypto.randomUUID()}`;
    const checked = await oauth.checkAuthorization({
      clientId: client.clientId,
      redirectUri: REDIRECT,
      responseType: "code",
      codeChallenge: createHash("sha256").update(verifier).digest("base64url"),
      codeChallengeMethod: "S256",
      resource,
    }, { resource });
    const code = await oauth.issueCode(checked, { kind: "service" });
    const tokens = await oauth.exchangeCode({
      code,
      clientId: client.clientId,
      redirectUri: REDIRECT,
      codeVerifier: verifier,
    });
    return {
      clientId: client.clientId,
      refreshToken: tokens.refreshToken,
      accessToken: tokens.accessToken,
    };
  } finally {
    await store.close();
  }
}

function refresh(url: string, clientId: string, token: string): Promise<Response> {
  return fetch(`${url}/sourcegraph/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: clientId,
    }),
  });
}

async function listTools(url: string, accessToken: string): Promise<number> {
  const answer = await fetch(`${url}/sourcegraph/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await answer.body?.cancel();
  return answer.status;
}

// Rotates as fast as it can until the service dies; returns every refresh
// token the client saw (the last one was in flight at the kill), and the
// last access token it received.
async function rotateUntilKilled(
  service: RunningService,
  grant: Grant,
): Promise<{ seen: string[]; access: string }> {
  const seen = [grant.refreshToken];
  let access = grant.accessToken;
  for (;;) {
    let answer: Response;
    try {
      answer = await refresh(service.url, grant.clientId, seen.at(-1)!);
    } catch {
      break; // the connection died with the service
    }
    let body: { refresh_token?: string; access_token?: string };
    try {
      body = await answer.json();
    } catch {
      break;
    }
    assertEquals(answer.status, 200, JSON.stringify(body));
    seen.push(body.refresh_token!);
    access = body.access_token!;
  }
  return { seen, access };
}

// After a restart: the one in flight works once or is refused cleanly; the older ones are refused.
async function checkAfterRestart(
  url: string,
  grant: Grant,
  state: { seen: string[]; access: string },
): Promise<{ worked: boolean; next?: Grant }> {
  const inFlight = state.seen.at(-1)!;
  const first = await refresh(url, grant.clientId, inFlight);
  const body = await first.json();
  assert(first.status === 200 || first.status === 400, `${first.status} ${JSON.stringify(body)}`);
  if (first.status === 400) {
    // The kill came after the rotation was stored: the token is used up, and
    // its reuse ends the grant (the issued but undelivered successor too).
    assertEquals(body.error, "invalid_grant");
    assertEquals(await listTools(url, state.access), 401);
    return { worked: false };
  }
  // Not yet rotated: it works once; the new access token works; a second use
  // is refused and ends the grant, new tokens included.
  assertEquals(await listTools(url, body.access_token), 200);
  const again = await refresh(url, grant.clientId, inFlight);
  assertEquals([again.status, (await again.json()).error], [400, "invalid_grant"]);
  const successor = await refresh(url, grant.clientId, body.refresh_token);
  assertEquals([successor.status, (await successor.json()).error], [400, "invalid_grant"]);
  assertEquals(await listTools(url, body.access_token), 401);
  // Every token before the one in flight was used up before the kill.
  for (const older of state.seen.slice(0, -1).slice(-3)) {
    const answer = await refresh(url, grant.clientId, older);
    assertEquals([answer.status, (await answer.json()).error], [400, "invalid_grant"]);
  }
  return { worked: true };
}

Deno.test(`SIGKILL during refresh-token rotation (a sample of ${KILLS} points): after a restart a token works once or is refused cleanly, never both old and new`, async () => {
  const parent = await tempDir("sg-oauth-crash-");
  try {
    const repo = await createRepo({ "a.txt": "rotation\n" }, { parent, name: "site" });
    const port = freePort();
    const resource = `http://127.0.0.1:${port}/sourcegraph/mcp`;
    const dataDir = join(parent, ".sourcegraph");
    const env = { SOURCEGRAPH_API_TOKEN: TOKEN, SOURCEGRAPH_PUBLIC_READ: "false" };
    const start = () => startService(parent, env, { repositories: [repo.path], port });
    const { points, random } = crashPoints("oauth rotation", { total: KILLS, sample: 3 });
    const outcomes: boolean[] = [];
    let rotations = 0;
    // Each round's grants are fresh (the last round's ended), all written before the first start.
    const rounds: Grant[][] = [];
    for (const _ of points) {
      const grants: Grant[] = [];
      for (let i = 0; i < CLIENTS; i++) grants.push(await seedGrant(dataDir, resource));
      rounds.push(grants);
    }
    // The service restarted after a kill is checked, then rotated in and killed in the next round.
    let service = await start();
    try {
      for (const [round, point] of points.entries()) {
        const grants = rounds[round];
        const killer = setTimeout(
          () => Deno.kill(service.pid, "SIGKILL"),
          100 + point * 40 + random() * 40,
        );
        const states = await Promise.all(grants.map((grant) => rotateUntilKilled(service, grant)));
        clearTimeout(killer);
        await service.stop();
        rotations += states.reduce((sum, state) => sum + state.seen.length - 1, 0);
        service = await start();
        for (const [i, grant] of grants.entries()) {
          outcomes.push((await checkAfterRestart(service.url, grant, states[i])).worked);
        }
      }
    } finally {
      await service.stop();
    }
    const worked = outcomes.filter((w) => w).length;
    console.log(
      `${rotations} rotations; the token in flight at the kill: worked once ${worked} times, ` +
        `refused cleanly ${outcomes.length - worked} times`,
    );
  } finally {
    await removeDir(parent);
  }
});
