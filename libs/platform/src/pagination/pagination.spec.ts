import { AppError } from '../errors/app-error';
import { readPage } from './pagination';

describe('readPage', () => {
  const limits = { defaultSize: 50, maxSize: 200 };
  it('applies defaults and computes the offset', () => {
    expect(readPage({}, limits)).toEqual({ page: 1, pageSize: 50, offset: 0 });
    expect(readPage({ page: '3', pageSize: '20' }, limits)).toEqual({ page: 3, pageSize: 20, offset: 40 });
  });
  it.each([
    [{ page: '0' }],
    [{ page: '-1' }],
    [{ pageSize: 'ten' }],
    [{ pageSize: '201' }],
    [{ page: '1.5' }],
  ])('refuses %p with a 400', (query) => {
    expect(() => readPage(query, limits)).toThrow(AppError);
    try {
      readPage(query, limits);
    } catch (e) {
      expect((e as AppError).status).toBe(400);
    }
  });
});
