import { describe, expect, it } from 'vitest';
import { safeRedirect, withError } from '#lib/auth/oauth/redirects.ts';
import { commands } from '#lib/cli/commands.ts';
import { checkProvider, loginChoices, loginUrl, oauthLoginOf, returnOf } from '#lib/web/oauth.ts';
import { helpText } from '#lib/web/shell.ts';
import { words } from '#lib/web/shell.ts';

const providers = [
  { id: 'google', name: 'Google', enabled: true },
  { id: 'github', name: 'GitHub', enabled: true },
  { id: 'discord', name: 'Discord', enabled: false },
];

describe('the browser terminal: OAuth login by redirect', () => {
  it('reads login --provider lines, leaves password logins to the shared command', () => {
    expect(oauthLoginOf(words('login --provider google'))).toEqual({ provider: 'google', hint: undefined });
    expect(oauthLoginOf(words('shroud login --provider=github alice'))).toEqual({ provider: 'github', hint: 'alice' });
    expect(oauthLoginOf(words('login alice --provider x'))).toEqual({ provider: 'x', hint: 'alice' });
    expect(oauthLoginOf(words('login alice -p secret'))).toBeNull();
    expect(oauthLoginOf(words('whoami'))).toBeNull();
    expect(() => oauthLoginOf(words('login --provider'))).toThrow(/needs a value/);
    expect(() => oauthLoginOf(words('login --provider google -p x'))).toThrow(/does not go with --provider/);
    expect(() => oauthLoginOf(words('login --provider google a b'))).toThrow(/at most one account/);
  });

  it('starts at the API with a relative return that the server accepts as is', () => {
    const url = new URL(loginUrl({ provider: 'google', hint: 'alice' }), 'https://shroud.example');
    expect(url.pathname).toBe('/api/zkauth/login');
    expect(url.searchParams.get('provider')).toBe('google');
    expect(url.searchParams.get('login_hint')).toBe('alice');
    const redirect = url.searchParams.get('redirect')!;
    expect(redirect).toBe('/?login=google');
    // The server's own check, with no extra allowed origin: the same target comes back.
    expect(safeRedirect(redirect, [])).toBe(redirect);
    expect(new URL(loginUrl({ provider: 'x' }), 'https://a.example').searchParams.has('login_hint')).toBe(false);
  });

  it('offers only enabled providers and names them when the asked one cannot be used', () => {
    expect(checkProvider('google', providers).name).toBe('Google');
    expect(() => checkProvider('discord', providers)).toThrow("provider 'discord' is not enabled: use one of google, github");
    expect(() => checkProvider('myspace', providers)).toThrow("unknown provider 'myspace': use one of google, github");
    expect(() => checkProvider('google', [])).toThrow(/none is configured/);
    const choices = loginChoices(providers);
    expect(choices).toContain('login --provider google');
    expect(choices).toContain('login --provider github');
    expect(choices).not.toContain('discord');
  });

  it('help login (the shared definition) shows the provider form', () => {
    const login = helpText(commands, 'login');
    expect(login).toMatch(/--provider <id>\s+sign in with an OAuth provider/);
    expect(helpText(commands, 'whoami')).not.toContain('--provider');
  });

  it('reads how the callback sent the page back, and the URL without the marks', () => {
    expect(returnOf('https://s.example/')).toBeNull();
    expect(returnOf('https://s.example/?login=google')).toEqual({ provider: 'google', error: undefined, cleanUrl: '/' });
    // The server's own error mark on the same target.
    const failed = withError('/?login=github', 'AUTH_FAILED');
    expect(returnOf(`https://s.example${failed}`)).toEqual({ provider: 'github', error: 'AUTH_FAILED', cleanUrl: '/' });
    expect(returnOf('https://s.example/?error=AUTH_FAILED&keep=1#x')).toEqual({ provider: undefined, error: 'AUTH_FAILED', cleanUrl: '/?keep=1#x' });
    // Anyone can write a URL: nothing but short plain words is echoed into the terminal.
    expect(returnOf('https://s.example/?error=%1b%5b2J%1b%5bHpwned')!.error).toBe('?');
  });
});
