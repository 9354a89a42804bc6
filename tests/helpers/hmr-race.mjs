/**
 * Preloaded into `next dev` by tests/dev/dev-restart.test.ts (NODE_OPTIONS=--import):
 * stands in for a race in Turbopack's native code that a test cannot bring
 * about at will (vercel/next.js#98215). When the file named by HMR_RACE_FILE
 * exists, the next client HMR subscription to the chunk list it names sees its
 * first result turn into a `restart`, as a subscription set up while the
 * restarted server compiles sometimes does; the file is then removed, so it
 * happens once. Nothing else changes.
 */
import fs from "node:fs";
import Module from "node:module";

const file = process.env.HMR_RACE_FILE;
const loadNative = Module._extensions[".node"];

Module._extensions[".node"] = function (module, filename) {
  loadNative(module, filename);
  const binding = module.exports;
  if (!file || !/next-swc/.test(filename) || typeof binding.projectClientHmrEvents !== "function") return;
  const subscribe = binding.projectClientHmrEvents;
  binding.projectClientHmrEvents = function (project, chunkName, callback) {
    let first = true;
    return subscribe.call(this, project, chunkName, (error, result) => {
      if (first && !error && result?.value && takeRace(chunkName)) result = { ...result, value: { ...result.value, type: "restart" } };
      first = false;
      return callback(error, result);
    });
  };
};

function takeRace(chunkName) {
  let target;
  try {
    target = fs.readFileSync(file, "utf8").trim();
  } catch {
    return false;
  }
  if (target !== chunkName) return false;
  fs.rmSync(file, { force: true });
  return true;
}
