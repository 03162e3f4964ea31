// hearth's memory plugin for OpenClaw: the memory slot answered by a hearth home.
//
// `hearth setup openclaw` installs this folder with `openclaw plugins install`
// and selects it in `plugins.slots.memory`, with `home` (and the `hearth`
// executable) in `plugins.entries.hearth-memory.config`. OpenClaw's memory
// tools are then hearth's:
//
// - memory_search asks the home's running server (`hearth serve`, `hearth mcp`
//   or `hearth watch`: `.git/hearth/server.json` says where it listens, with the
//   key it takes for reads) for `GET /v1/search`; when none runs, it runs
//   `hearth --home HOME search --json`. Each hit is hearth's path and line range,
//   with the text of those lines as the snippet.
// - memory_get reads a markdown file of the home from the work tree (the files
//   are the truth), a line range of it as OpenClaw's own memory_get does. Like
//   hearth's own reads it never enters .git and never follows a symlink.
//
// No dependency beyond Node's own modules: the folder installs offline.

import { execFile } from "node:child_process";
import { constants as fsConstants } from "node:fs";
import fs from "node:fs/promises";
import http from "node:http";
import path from "node:path";

const PLUGIN_ID = "hearth-memory";
const DEFAULT_TIMEOUT_MS = 10000;
const DEFAULT_RESULTS = 6;
const MAX_RESULTS = 50;
const SNIPPET_CHARS = 700;
const READ_LINES = 120;
const READ_CHARS = 12000;

const SEARCH_PARAMETERS = {
  type: "object",
  properties: {
    query: { type: "string" },
    maxResults: { type: "integer", minimum: 1 },
    minScore: { type: "number" },
    corpus: { type: "string", enum: ["memory", "wiki", "all", "sessions"] },
  },
  required: ["query"],
  additionalProperties: false,
};

const GET_PARAMETERS = {
  type: "object",
  properties: {
    path: { type: "string" },
    from: { type: "integer", minimum: 1 },
    lines: { type: "integer", minimum: 1 },
    corpus: { type: "string", enum: ["memory", "wiki", "all"] },
  },
  required: ["path"],
  additionalProperties: false,
};

function jsonResult(payload) {
  return { content: [{ type: "text", text: JSON.stringify(payload, null, 2) }], details: payload };
}

function settingsOf(raw) {
  const config = raw && typeof raw === "object" ? raw : {};
  const home = typeof config.home === "string" && config.home ? path.resolve(config.home) : null;
  return {
    home,
    hearth: typeof config.hearth === "string" && config.hearth ? config.hearth : "hearth",
    timeoutMs: Number.isInteger(config.timeoutMs) ? config.timeoutMs : DEFAULT_TIMEOUT_MS,
  };
}

// -- the home's server ------------------------------------------------------------

async function gitDir(home) {
  const dotGit = path.join(home, ".git");
  const stat = await fs.stat(dotGit);
  if (stat.isDirectory()) return dotGit;
  const text = await fs.readFile(dotGit, "utf8"); // a linked work tree: "gitdir: PATH"
  const match = /^gitdir:\s*(.+)$/m.exec(text);
  if (!match) throw new Error(`${dotGit} names no git folder`);
  return path.resolve(home, match[1].trim());
}

/**
 * Whether the record's process is the server that wrote it: alive, not a zombie,
 * and (the record says when it started, /proc/PID/stat's 22nd field) started then.
 * A server killed with -9 leaves its record; a process that later took its pid
 * is not it, and whoever listens on its port then must not be sent the key nor
 * believed (hearth's own clients and hook shims judge a record the same way).
 */
async function serverAlive(data) {
  const pid = Number(data.pid);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat;
  try {
    stat = await fs.readFile(`/proc/${pid}/stat`, "latin1");
  } catch {
    return true; // no /proc: kill's answer is all there is
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 1).trim().split(/\s+/);
  if (fields[0] === "Z") return false;
  return typeof data.since !== "string" || fields[19] === data.since;
}

/** Where the home's live server listens, or null when none runs. */
async function findServer(home) {
  let data;
  try {
    const state = path.join(await gitDir(home), "hearth");
    data = JSON.parse(await fs.readFile(path.join(state, "server.json"), "utf8"));
    // A copy of the home (cp -a while its server ran) carries the record along.
    if (typeof data.state === "string" && data.state !== (await fs.realpath(state))) return null;
  } catch {
    return null;
  }
  if (!data || !(await serverAlive(data))) return null;
  const key = typeof data.hook_key === "string" ? data.hook_key : "";
  const url = typeof data.url === "string" ? data.url : "";
  if (!key) return null;
  if (url.startsWith("unix:")) return { socketPath: url.slice(5), key, url };
  const match = /^http:\/\/(\[[^\]]+\]|[^:/]+):(\d+)/.exec(url);
  if (!match) return null;
  let host = match[1].replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "0.0.0.0") host = "127.0.0.1";
  if (host === "::") host = "::1";
  if (host !== "127.0.0.1" && host !== "::1") return null; // the key never leaves this machine
  return { host, port: Number(match[2]), key, url };
}

function getJson(server, target, timeoutMs) {
  return new Promise((resolve) => {
    const where = server.socketPath
      ? { socketPath: server.socketPath }
      : { host: server.host, port: server.port };
    const request = http.request(
      {
        ...where,
        method: "GET",
        path: target,
        headers: { Authorization: `Bearer ${server.key}`, Accept: "application/json" },
        timeout: timeoutMs,
      },
      (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("end", () => {
          if (response.statusCode !== 200) return resolve(null);
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          } catch {
            resolve(null);
          }
        });
      },
    );
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(null));
    request.end();
  });
}

function runHearth(settings, args) {
  return new Promise((resolve, reject) => {
    execFile(
      settings.hearth,
      ["--home", settings.home, ...args],
      { timeout: settings.timeoutMs * 3, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const why = String(stderr || "").trim().split("\n").pop() || error.message;
          reject(new Error(`hearth ${args[0]} failed: ${why}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout));
        } catch (parseError) {
          reject(new Error(`hearth ${args[0]} printed no JSON: ${parseError.message}`));
        }
      },
    );
  });
}

/** hearth's hits for a query: the server's, else the CLI's; and how they were reached. */
async function hearthSearch(settings, query, limit) {
  const server = await findServer(settings.home);
  if (server) {
    const target = `/v1/search?${new URLSearchParams({ q: query, limit: String(limit) })}`;
    const found = await getJson(server, target, settings.timeoutMs);
    if (found && Array.isArray(found.hits)) return { found, via: `server ${server.url}` };
  }
  const found = await runHearth(settings, ["search", "--json", "--limit", String(limit), "--", query]);
  return { found, via: "hearth search" };
}

// -- reading the home's files ------------------------------------------------------

/** The absolute path of a markdown file inside the home, or an error with a code. */
async function insideHome(home, relPath) {
  const raw = String(relPath || "").trim();
  if (!raw) throw Object.assign(new Error("path required"), { code: "MEMORY_PATH_REQUIRED" });
  const absolute = path.resolve(home, raw);
  const relative = path.relative(home, absolute);
  const parts = relative.split(path.sep);
  if (!relative || relative.startsWith("..") || path.isAbsolute(relative) || parts.includes(".git")) {
    throw Object.assign(new Error("path is not a file of the hearth home"), { code: "MEMORY_PATH_NOT_ALLOWED" });
  }
  if (!relative.endsWith(".md")) {
    throw Object.assign(new Error("path is not a markdown file"), { code: "MEMORY_PATH_NOT_ALLOWED" });
  }
  return { absolute, relative: parts.join("/") };
}

const notAllowed = (why) => Object.assign(new Error(why), { code: "MEMORY_PATH_NOT_ALLOWED" });

/**
 * The lines of a markdown file of the home, read as hearth's own read path reads:
 * no component of the path may be a symlink (a commit can bring one that names
 * `.git/config` or the server's key in `.git/hearth/`), and the file is opened
 * with O_NOFOLLOW and checked to be a regular file. `lines` is null when it is
 * not there.
 */
async function readLines(home, relPath) {
  const { relative } = await insideHome(home, relPath);
  const realHome = await fs.realpath(home);
  let current = realHome;
  for (const part of relative.split("/")) {
    current = path.join(current, part);
    let info;
    try {
      info = await fs.lstat(current);
    } catch (error) {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") return { relative, lines: null };
      throw error;
    }
    if (info.isSymbolicLink()) throw notAllowed(`${relative} goes through a symlink; hearth does not follow symlinks`);
  }
  let handle;
  try {
    handle = await fs.open(current, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch (error) {
    if (error.code === "ELOOP") throw notAllowed(`${relative} is a symlink; hearth does not follow symlinks`);
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return { relative, lines: null };
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw notAllowed(`${relative} is not a regular file`);
    const text = await handle.readFile("utf8");
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    return { relative, lines };
  } finally {
    await handle.close();
  }
}

async function readRange(home, relPath, from, count) {
  const { relative, lines } = await readLines(home, relPath);
  if (lines === null) return { status: "not_found", text: "", path: relative };
  const start = Number.isInteger(from) && from > 0 ? from : 1;
  const wanted = Number.isInteger(count) && count > 0 ? count : READ_LINES;
  const selected = lines.slice(start - 1, start - 1 + wanted);
  let included = 0;
  let chars = 0;
  for (const line of selected) {
    const next = chars + line.length + (included > 0 ? 1 : 0);
    if (included > 0 && next > READ_CHARS) break;
    included += 1;
    chars = next;
  }
  const more = start - 1 + included < lines.length;
  let text = selected.slice(0, included).join("\n").slice(0, READ_CHARS);
  const result = { status: "ok", text, path: relative, from: start, lines: included };
  if (more) {
    result.truncated = true;
    result.nextFrom = start + included;
    text += `\n\n[More content available. Use from=${result.nextFrom} to continue.]`;
    result.text = text;
  }
  return result;
}

async function snippetOf(home, hit) {
  try {
    const { lines } = await readLines(home, hit.path);
    if (lines !== null) {
      const text = lines.slice(hit.start_line - 1, hit.end_line).join("\n").trim();
      if (text) return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
    }
  } catch {
    // the file moved since the index saw it: hearth's own snippet stands in
  }
  return String(hit.snippet || "").replace(/\*\*/g, "");
}

/** hearth's hits as OpenClaw's memory search results. */
async function searchResults(settings, query, opts) {
  const limit = Math.min(Math.max(Number(opts.maxResults) || DEFAULT_RESULTS, 1), MAX_RESULTS);
  const { found, via } = await hearthSearch(settings, query, limit);
  const hits = found.hits.slice(0, limit);
  const top = hits.length > 0 ? Math.max(...hits.map((h) => Number(h.score) || 0)) : 0;
  const results = [];
  for (const hit of hits) {
    const score = top > 0 ? (Number(hit.score) || 0) / top : 0;
    if (typeof opts.minScore === "number" && score < opts.minScore) continue;
    const startLine = Number(hit.start_line);
    const endLine = Number(hit.end_line);
    const range = startLine === endLine ? `#L${startLine}` : `#L${startLine}-L${endLine}`;
    results.push({
      path: hit.path,
      startLine,
      endLine,
      score: Math.round(score * 10000) / 10000,
      hearthScore: hit.score,
      snippet: await snippetOf(settings.home, hit),
      source: "memory",
      citation: `${hit.path}${range}`,
      ...(hit.heading ? { heading: hit.heading } : {}),
      ...(hit.kind ? { kind: hit.kind } : {}),
    });
  }
  return {
    results,
    fresh: found.fresh,
    ranking: found.ranking,
    via,
  };
}

// -- OpenClaw's surfaces ------------------------------------------------------------

function unconfigured() {
  return jsonResult({
    results: [],
    disabled: true,
    unavailable: true,
    error: `${PLUGIN_ID} has no home configured`,
    action: "run: hearth --home HOME setup openclaw",
  });
}

function searchTool(settings) {
  return {
    label: "Memory Search",
    name: "memory_search",
    description:
      "Mandatory recall step: search the assistant's hearth home (MEMORY.md, USER.md, daily notes " +
      "under memory/, topic and person notes, decisions) before answering questions about prior " +
      "work, decisions, dates, people, preferences, or todos. Each result is a file of the home " +
      "with its line range (path, startLine, endLine) and the text of those lines; use memory_get " +
      "for more of a file.",
    parameters: SEARCH_PARAMETERS,
    async execute(_toolCallId, params) {
      if (!settings.home) return unconfigured();
      const query = String(params?.query ?? "").trim();
      if (!query) return jsonResult({ results: [], error: "query required" });
      if (params?.corpus === "sessions" || params?.corpus === "wiki") {
        return jsonResult({
          results: [],
          unavailable: true,
          warning: `hearth answers the memory corpus only (${params.corpus} was asked)`,
        });
      }
      try {
        const found = await searchResults(settings, query, params ?? {});
        return jsonResult({
          results: found.results,
          provider: "hearth",
          mode: found.ranking,
          citations: "on",
          ...(found.fresh === false
            ? { stale: true, warning: "hearth's index is catching up with the newest edits" }
            : {}),
          debug: { backend: "hearth", via: found.via },
        });
      } catch (error) {
        return jsonResult({
          results: [],
          disabled: true,
          unavailable: true,
          error: error instanceof Error ? error.message : String(error),
          warning: "Memory search is unavailable: hearth did not answer.",
          action: `Check the home with: hearth --home ${settings.home} status`,
        });
      }
    },
  };
}

function getTool(settings) {
  return {
    label: "Memory Get",
    name: "memory_get",
    description:
      "Safe exact excerpt read from a markdown file of the assistant's hearth home (a path " +
      "memory_search returned, or MEMORY.md, USER.md, memory/YYYY-MM-DD.md). Defaults to 120 " +
      "lines from `from`; says where to continue when more remains. status=not_found means " +
      "the file does not exist.",
    parameters: GET_PARAMETERS,
    async execute(_toolCallId, params) {
      if (!settings.home) return unconfigured();
      const relPath = String(params?.path ?? "");
      try {
        return jsonResult(await readRange(settings.home, relPath, params?.from, params?.lines));
      } catch (error) {
        return jsonResult({
          path: relPath,
          text: "",
          status: "error",
          code: error?.code ?? "MEMORY_READ_FAILED",
          error: error instanceof Error ? error.message : String(error),
        });
      }
    },
  };
}

function searchManager(settings) {
  return {
    async search(query, opts = {}) {
      return (await searchResults(settings, query, opts)).results;
    },
    async readFile(params) {
      return await readRange(settings.home, params.relPath, params.from, params.lines);
    },
    status() {
      return {
        backend: "builtin",
        provider: "hearth",
        workspaceDir: settings.home,
        custom: { hearth: settings.hearth, home: settings.home },
      };
    },
    async probeEmbeddingAvailability() {
      return { ok: true };
    },
    async probeVectorAvailability() {
      return false;
    },
    async close() {},
  };
}

// No file of the home is vouched for as the person's ("owner"): an agent writes
// MEMORY.md, USER.md and the persona files too (OpenClaw's own file tools, whose
// writes hearth commits, and a write-scoped token where [agents] persona is
// "direct"), and hearth lists each such change for the person to undo. So every
// file of the home is the agent's word; anything outside it is untrusted.
function originOf(home, workspaceDir, relativePath) {
  const absolute = path.resolve(workspaceDir || home, relativePath);
  const relative = path.relative(home, absolute).split(path.sep).join("/");
  if (!relative || relative.startsWith("..") || path.isAbsolute(relative)) return "untrusted";
  return "agent";
}

function promptSection(params) {
  const tools = params.availableTools;
  if (!tools.has("memory_search") && !tools.has("memory_get")) return [];
  return [
    "## Memory Recall",
    "Your memory is a hearth home (your workspace): before answering anything about prior " +
      "work, decisions, dates, people, preferences, or todos, run memory_search" +
      (tools.has("memory_get") ? "; use memory_get to pull only the needed lines" : "") +
      ". If low confidence after search, say you checked.",
    "Citations: include Source: <path#line> when it helps the user verify memory snippets.",
    "",
  ];
}

export default {
  id: PLUGIN_ID,
  name: "hearth memory",
  description: "OpenClaw's memory answered by a hearth home",
  kind: "memory",
  register(api) {
    const settings = settingsOf(api.pluginConfig);
    api.registerMemoryCapability({
      deterministicRecallToolName: "memory_search",
      promptBuilder: promptSection,
      runtime: {
        async getMemorySearchManager() {
          if (!settings.home) return { manager: null, error: `${PLUGIN_ID} has no home configured` };
          return { manager: searchManager(settings), debug: { backend: "builtin" } };
        },
        resolveMemoryBackendConfig() {
          return { backend: "builtin" };
        },
        async authorizeSearchHits(params) {
          return params.hits.filter((hit) => hit.source === "memory");
        },
        // OpenClaw asks the memory runtime whose word each workspace file is: in a
        // hearth home every file is one an agent can write (see originOf), so none
        // is presented as the person's.
        supportsWorkspaceMemoryReadSources: true,
        async classifyWorkspaceMemoryPaths(params) {
          return params.relativePaths.map((relativePath) => ({
            relativePath,
            originClass: originOf(settings.home, params.workspaceDir, relativePath),
          }));
        },
      },
    });
    api.registerTool(searchTool(settings), { names: ["memory_search"] });
    api.registerTool(getTool(settings), { names: ["memory_get"] });
  },
};
