// What a vm.runInContext `timeout` costs per call (Node starts a watchdog thread for each): the SDK passes its
// isolateExecutionTimeout on every call into a workflow context (BENCHMARKS.md (a), 2026-12-03). `node bench/vm-timeout.mjs`
import vm from 'node:vm';
const ctx = vm.createContext({}, { microtaskMode: 'afterEvaluate' });
vm.runInContext('globalThis.f = () => 1', ctx);
const s = new vm.Script('f()');
for (const opts of [{}, { timeout: 5000 }, {}, { timeout: 5000 }]) {
  const n = 20000; const t0 = process.hrtime.bigint(); const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) s.runInContext(ctx, opts);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / n; const cpu = process.cpuUsage(c0);
  console.log(JSON.stringify(opts), us.toFixed(1), 'µs/call wall', ((cpu.user + cpu.system) / n).toFixed(1), 'µs/call cpu');
}
