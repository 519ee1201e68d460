import { isUniqueViolation } from './unique-violation';

describe('isUniqueViolation', () => {
  it("reads SQLSTATE 23505 from the driver's error or TypeORM's wrapper, nothing else", () => {
    expect(isUniqueViolation({ code: '23505' })).toBe(true);
    expect(isUniqueViolation({ message: 'x', driverError: { code: '23505' } })).toBe(true);
    expect(isUniqueViolation({ driverError: { code: '23503' }, code: '23505' })).toBe(false);
    expect(isUniqueViolation({ code: '40P01' })).toBe(false);
    expect(isUniqueViolation(new Error('23505'))).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });
});
