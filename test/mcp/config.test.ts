// mcpServers checked before anything is spawned, and `${NAME}` read from the environment.
import { describe, expect, it } from 'vitest';
import { describeServer, resolveMcpServers } from '../../src/mcp/config.js';

describe('resolveMcpServers', () => {
  it('reads ${NAME} references in headers and env, alone or inside a value', () => {
    const [http, stdio] = resolveMcpServers(
      {
        web: { url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer ${TOKEN}', 'X-Team': '${TEAM}-${TOKEN}' } },
        local: { command: 'node', args: ['server.js'], env: { API_KEY: '${TOKEN}' } },
      },
      { TOKEN: 'abc', TEAM: 'ops' },
    );
    expect(http).toMatchObject({ kind: 'http', config: { headers: { Authorization: 'Bearer abc', 'X-Team': 'ops-abc' } } });
    expect(stdio).toMatchObject({ kind: 'stdio', config: { command: 'node', env: { API_KEY: 'abc' } } });
    expect(describeServer(http)).toBe('http://127.0.0.1:3001/mcp');
    expect(describeServer(stdio)).toBe('node server.js');
  });

  it('names the variable that is not set, and where it is used', () => {
    expect(() => resolveMcpServers({ web: { url: 'http://x/mcp', headers: { Authorization: 'Bearer ${NOPE}' } } }, {})).toThrow(
      'mcpServers.web.headers.Authorization refers to ${NOPE}, but the environment variable NOPE is not set on this worker; set it',
    );
  });

  it('refuses a server name that cannot prefix tool names or is reserved (agent), and an entry that is neither stdio nor HTTP', () => {
    expect(() => resolveMcpServers({ 'a__b': { command: 'x' } }, {})).toThrow(/mcpServers\.a__b: a server name may hold only letters.*not "__"/);
    expect(() => resolveMcpServers({ 'a.b': { command: 'x' } }, {})).toThrow(/mcpServers\.a\.b: a server name/);
    expect(() => resolveMcpServers({ agent: { command: 'x' } }, {})).toThrow(`mcpServers.agent: the server name "agent" is reserved: agent__<name> are the sub-agents' tools`);
    expect(() => resolveMcpServers({ s: {} as never }, {})).toThrow('mcpServers.s: give either "command"');
    expect(() => resolveMcpServers({ s: { url: 'ftp://x' } }, {})).toThrow('mcpServers.s.url: "ftp://x" must be http:// or https://');
    expect(() => resolveMcpServers({ s: { url: 'not a url' } }, {})).toThrow('mcpServers.s.url: "not a url" is not a URL');
  });
});

describe('mcpServerPolicy caps', () => {
  it('defaults the listing caps and the stdio read limit, and takes whole numbers over them', () => {
    const [byDefault, raised] = resolveMcpServers({ a: { command: 'x' }, b: { command: 'x', maxListPages: 5, maxTools: 20, maxMessageBytes: 64 << 20 } }, {});
    expect(byDefault.policy).toMatchObject({ maxListPages: 100, maxTools: 1000, maxMessageBytes: 10 * 1024 * 1024 });
    expect(raised.policy).toMatchObject({ maxListPages: 5, maxTools: 20, maxMessageBytes: 64 << 20 });
  });

  it('refuses a cap that is not a whole number of at least 1, naming the field', () => {
    expect(() => resolveMcpServers({ s: { command: 'x', maxListPages: 0 } }, {})).toThrow(
      'mcpServers.s.maxListPages: expected a whole number of at least 1, got 0 (default 100)',
    );
    expect(() => resolveMcpServers({ s: { command: 'x', maxTools: '5' as never } }, {})).toThrow(/mcpServers\.s\.maxTools: expected a whole number/);
  });
});

describe('mcpServerPolicy elicitation', () => {
  it('asks by default, takes decline, accept-defaults and a timeout, and names a policy it does not know', () => {
    const [byDefault, set] = resolveMcpServers({ a: { command: 'x' }, b: { command: 'x', elicitation: 'decline', elicitationTimeout: '10m' } }, {});
    expect(byDefault.policy).toMatchObject({ elicitation: 'ask' });
    expect(byDefault.policy.elicitationTimeoutMs).toBeUndefined();
    expect(set.policy).toMatchObject({ elicitation: 'decline', elicitationTimeoutMs: 600_000 });
    expect(() => resolveMcpServers({ s: { command: 'x', elicitation: 'always' as never } }, {})).toThrow(
      'mcpServers.s.elicitation: expected one of ask, decline, accept-defaults, got "always"',
    );
  });
});
