import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { identityService } from '../src';
import { ADMIN, call, login } from './helpers';

/**
 * Issue 27 items 5–7 on another service (the fix is the platform's): an empty JSON body is no body, a
 * trailing slash is the route without it, the router's own errors are in the hosted envelope.
 */
describe('identity: empty JSON bodies, trailing slashes and router errors', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb');
  });
  afterAll(() => sut?.stop());

  it('logs out with content-type application/json and no body', async () => {
    const pair = await login(sut.url, ADMIN.userName, ADMIN.password);
    const out = await call(sut.url, 'POST', '/api/v1/auth/logout', {
      token: pair.AccessToken,
      headers: { 'content-type': 'application/json' },
    });
    expect(out.status).toBe(200);
    expect(out.body.isSuccess).toBe(true);
  });

  it('accepts a trailing slash and answers an over-long path parameter in the hosted envelope', async () => {
    const pair = await login(sut.url, ADMIN.userName, ADMIN.password);
    const slash = await call(sut.url, 'GET', '/api/v1/auth/revocations/', { token: pair.AccessToken });
    expect(slash.status).toBe(200);
    const long = await call(sut.url, 'GET', `/api/v1/auth/user-permissions/${'x'.repeat(600)}`, {
      token: pair.AccessToken,
    });
    expect(long.status).toBe(414);
    expect(long.body).toMatchObject({ isSuccess: false, errors: [{ code: 'URI_TOO_LONG' }] });
  });
});
