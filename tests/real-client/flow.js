// What every flow script of the real-client lane shares: the step being run, one `ok:` line per
// step, polling without a clock (a count of reads, so a busy machine cannot change the verdict),
// and the exit: `flow complete`, or `FAILED at <step>` and exit 1.
'use strict';

let current = 'start';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

exports.step = (what) => {
  current = what;
};
exports.ok = (what) => console.log(`ok: ${what}`);

// Reads probe until it answers something truthy, and answers that.
exports.until = async (what, probe, tries = 600) => {
  for (let i = 0; i < tries; i++) {
    const v = await probe();
    if (v) return v;
    await sleep(50);
  }
  throw new Error(`${what}: not reached after ${tries} reads`);
};

// Runs the flow; detail(e) says what a failed call got (the client's own error shape).
exports.run = (main, detail = (e) => e.message) => {
  main().then(
    () => console.log('flow complete'),
    (e) => {
      console.error(`FAILED at ${current}: ${detail(e)}`);
      process.exit(1);
    },
  );
};
