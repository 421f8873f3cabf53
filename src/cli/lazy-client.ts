// The agent's client functions (start, read, steer a run: src/client), for the commands. They load Temporal's client
// and its protobuf definitions, about 0.6 s of CPU, so a command imports them through this function, once its flags
// and values are checked: `--help`, a bad flag or a bad value then answers in a tenth of that
// (test/cli/light-start.test.ts).
export const agentClient = () => import('../client/index.js');
