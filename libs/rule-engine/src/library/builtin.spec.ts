import {
  AGE_CHECK,
  BUILT_IN_RULES,
  COUNTRY_ALLOWED,
  CREDIT_MIN,
  createBuiltInRuleLibrary,
  DEBUG_ECHO,
  DTI_MAX,
  KYC_OK,
} from './builtin';
import { compileCodeBased } from './code-based';

describe('built-in sample rules', () => {
  it('CREDIT_MIN compares applicant.creditScore to minScore (default 600)', () => {
    expect(CREDIT_MIN.evaluate({ applicant: { creditScore: 650 } }, {})).toEqual({
      matched: true,
      outputs: { creditApproved: true, creditScoreGap: 50 },
    });
    expect(CREDIT_MIN.evaluate({ applicant: { creditScore: 650 } }, { minScore: 700 })).toMatchObject({
      matched: false,
    });
    expect(() => CREDIT_MIN.evaluate({ applicant: {} }, {})).toThrow(
      'applicant.creditScore must be a number',
    );
  });

  it('KYC_OK needs a verified status and documents not refused', () => {
    expect(KYC_OK.evaluate({ customer: { kycStatus: 'VERIFIED' } }, {})).toMatchObject({ matched: true });
    expect(
      KYC_OK.evaluate({ customer: { kycStatus: 'verified', documentsVerified: false } }, {}),
    ).toMatchObject({
      matched: false,
    });
  });

  it('AGE_CHECK reads age or computes it from the birth date', () => {
    expect(AGE_CHECK.evaluate({ applicant: { age: 17 } }, {})).toMatchObject({ matched: false });
    expect(AGE_CHECK.evaluate({ applicant: { age: 17 } }, { minAge: 16 })).toMatchObject({ matched: true });
    const result = AGE_CHECK.evaluate({ applicant: { birthDate: '1990-01-01' } }, {}) as any;
    expect(result.matched).toBe(true);
    expect(result.outputs.applicantAge).toBeGreaterThanOrEqual(35);
    expect(() => AGE_CHECK.evaluate({ applicant: { birthDate: 'soon' } }, {})).toThrow('ISO date');
  });

  it('DTI_MAX and COUNTRY_ALLOWED', () => {
    expect(DTI_MAX.evaluate({ applicant: { monthlyDebt: 1000, monthlyIncome: 4000 } }, {})).toEqual({
      matched: true,
      outputs: { debtToIncomeRatio: 0.25, dtiWithinLimit: true },
    });
    expect(() => DTI_MAX.evaluate({ applicant: { monthlyDebt: 1, monthlyIncome: 0 } }, {})).toThrow(
      'positive',
    );
    expect(
      COUNTRY_ALLOWED.evaluate({ applicant: { country: 'nl' } }, { allowed: ['NL', 'BE'] }),
    ).toMatchObject({
      matched: true,
    });
    expect(COUNTRY_ALLOWED.evaluate({ applicant: { country: 'US' } }, { allowed: ['NL'] })).toMatchObject({
      matched: false,
    });
  });

  it('DEBUG_ECHO is hidden and echoes its parameters', () => {
    expect(DEBUG_ECHO.hidden).toBe(true);
    expect(DEBUG_ECHO.evaluate({}, { a: 1 })).toEqual({ echo: { a: 1 } });
  });

  it('every rule declares the output facts it returns, and the library compiles a code-based set', async () => {
    expect(createBuiltInRuleLibrary().list()).toHaveLength(BUILT_IN_RULES.length);
    const compiled = await compileCodeBased(
      {
        rules: [
          { code: 'AGE_CHECK' },
          { code: 'CREDIT_MIN', parameters: { minScore: 700 } },
          { code: 'KYC_OK' },
        ],
      },
      { codeRules: createBuiltInRuleLibrary() },
    );
    const result = await compiled.evaluate({
      applicant: { age: 30, creditScore: 720 },
      customer: { kycStatus: 'verified' },
    });
    expect(result.rulesMatched).toEqual(['AGE_CHECK', 'CREDIT_MIN', 'KYC_OK']);
    const declared = ['AGE_CHECK', 'CREDIT_MIN', 'KYC_OK'].flatMap((code) =>
      createBuiltInRuleLibrary()
        .get(code)!
        .outputSchema.fields.map((f) => f.path),
    );
    expect(Object.keys(result.outputs).sort()).toEqual(declared.sort());
  });
});
