import type { Facts } from '../rulesets/types';
import { readFactPath } from './contract';
import { defineRule, RuleDefinition } from './define-rule';
import { RuleLibrary } from './rule-library';

/** `sourceKey` of the built-in sample library's manifest. */
export const BUILT_IN_RULES_SOURCE_KEY = 'arbiter.builtin';

function number(facts: Facts, path: string): number {
  const value = readFactPath(facts, path);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`${path} must be a number`);
  return value;
}

function parameter(parameters: Record<string, unknown>, name: string, fallback: number): number {
  const value = parameters[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new Error(`parameter ${name} must be a number`);
  return value;
}

function ageAt(birthDate: string, today: Date): number {
  const born = new Date(birthDate);
  if (Number.isNaN(born.getTime())) throw new Error('applicant.birthDate must be an ISO date');
  let age = today.getUTCFullYear() - born.getUTCFullYear();
  const beforeBirthday =
    today.getUTCMonth() < born.getUTCMonth() ||
    (today.getUTCMonth() === born.getUTCMonth() && today.getUTCDate() < born.getUTCDate());
  if (beforeBirthday) age--;
  return age;
}

/** Credit score at least `minScore` (parameter, default 600). */
export const CREDIT_MIN = defineRule({
  code: 'CREDIT_MIN',
  displayName: 'Minimum credit score',
  category: 'Credit',
  tags: ['credit', 'score', 'lending'],
  description: 'Matches when applicant.creditScore >= parameters.minScore (default 600).',
  inputSchema: {
    contractName: 'CreditMinInput',
    fields: [{ path: 'applicant.creditScore', dataType: 'number' }],
  },
  outputSchema: {
    contractName: 'CreditMinOutput',
    fields: [
      { path: 'creditApproved', dataType: 'boolean' },
      { path: 'creditScoreGap', dataType: 'number' },
    ],
  },
  evaluate(facts, parameters) {
    const score = number(facts, 'applicant.creditScore');
    const min = parameter(parameters, 'minScore', 600);
    const matched = score >= min;
    return { matched, outputs: { creditApproved: matched, creditScoreGap: score - min } };
  },
});

/** KYC status `verified` (case-insensitive) and documents verified. */
export const KYC_OK = defineRule({
  code: 'KYC_OK',
  displayName: 'KYC completed',
  category: 'Compliance',
  tags: ['kyc', 'identity', 'compliance'],
  description: "Matches when customer.kycStatus is 'verified' and customer.documentsVerified is not false.",
  inputSchema: {
    contractName: 'KycInput',
    fields: [
      { path: 'customer.kycStatus', dataType: 'string' },
      { path: 'customer.documentsVerified', dataType: 'boolean' },
    ],
  },
  outputSchema: { contractName: 'KycOutput', fields: [{ path: 'kycPassed', dataType: 'boolean' }] },
  evaluate(facts) {
    const status = String(readFactPath(facts, 'customer.kycStatus') ?? '').toLowerCase();
    const kycPassed = status === 'verified' && readFactPath(facts, 'customer.documentsVerified') !== false;
    return { matched: kycPassed, outputs: { kycPassed } };
  },
});

/** Age (from applicant.age, or applicant.birthDate) at least `minAge` (default 18). */
export const AGE_CHECK = defineRule({
  code: 'AGE_CHECK',
  displayName: 'Minimum age',
  category: 'Eligibility',
  tags: ['age', 'eligibility'],
  description:
    'Matches when the applicant is at least parameters.minAge (default 18) years old; reads applicant.age, ' +
    'or computes it from applicant.birthDate.',
  inputSchema: {
    contractName: 'AgeCheckInput',
    fields: [
      { path: 'applicant.age', dataType: 'number' },
      { path: 'applicant.birthDate', dataType: 'date' },
    ],
  },
  outputSchema: {
    contractName: 'AgeCheckOutput',
    fields: [
      { path: 'applicantAge', dataType: 'number' },
      { path: 'ageEligible', dataType: 'boolean' },
    ],
  },
  evaluate(facts, parameters) {
    const birthDate = readFactPath(facts, 'applicant.birthDate');
    const age =
      readFactPath(facts, 'applicant.age') === undefined && typeof birthDate === 'string'
        ? ageAt(birthDate, new Date())
        : number(facts, 'applicant.age');
    const ageEligible = age >= parameter(parameters, 'minAge', 18);
    return { matched: ageEligible, outputs: { applicantAge: age, ageEligible } };
  },
});

/** Debt-to-income ratio at most `maxRatio` (default 0.43). */
export const DTI_MAX = defineRule({
  code: 'DTI_MAX',
  displayName: 'Maximum debt-to-income ratio',
  category: 'Credit',
  tags: ['credit', 'affordability', 'dti'],
  description:
    'Matches when applicant.monthlyDebt / applicant.monthlyIncome <= parameters.maxRatio (default 0.43).',
  inputSchema: {
    contractName: 'DtiInput',
    fields: [
      { path: 'applicant.monthlyDebt', dataType: 'number' },
      { path: 'applicant.monthlyIncome', dataType: 'number' },
    ],
  },
  outputSchema: {
    contractName: 'DtiOutput',
    fields: [
      { path: 'debtToIncomeRatio', dataType: 'number' },
      { path: 'dtiWithinLimit', dataType: 'boolean' },
    ],
  },
  evaluate(facts, parameters) {
    const income = number(facts, 'applicant.monthlyIncome');
    if (income <= 0) throw new Error('applicant.monthlyIncome must be positive');
    const ratio = Math.round((number(facts, 'applicant.monthlyDebt') / income) * 10000) / 10000;
    const dtiWithinLimit = ratio <= parameter(parameters, 'maxRatio', 0.43);
    return { matched: dtiWithinLimit, outputs: { debtToIncomeRatio: ratio, dtiWithinLimit } };
  },
});

/** Country in `parameters.allowed` (ISO codes, case-insensitive); with no list, every country is allowed. */
export const COUNTRY_ALLOWED = defineRule({
  code: 'COUNTRY_ALLOWED',
  displayName: 'Allowed country',
  category: 'Compliance',
  tags: ['country', 'sanctions', 'compliance'],
  description:
    'Matches when applicant.country is in parameters.allowed (all countries when the list is absent).',
  inputSchema: { contractName: 'CountryInput', fields: [{ path: 'applicant.country', dataType: 'string' }] },
  outputSchema: { contractName: 'CountryOutput', fields: [{ path: 'countryAllowed', dataType: 'boolean' }] },
  evaluate(facts, parameters) {
    const country = String(readFactPath(facts, 'applicant.country') ?? '').toUpperCase();
    const allowed = parameters.allowed;
    if (allowed !== undefined && !Array.isArray(allowed))
      throw new Error('parameter allowed must be an array of country codes');
    const countryAllowed =
      country !== '' && (!allowed || allowed.some((c) => String(c).toUpperCase() === country));
    return { matched: countryAllowed, outputs: { countryAllowed } };
  },
});

/** Hidden diagnostics rule: always matches and echoes its parameters as `echo`. */
export const DEBUG_ECHO = defineRule({
  code: 'DEBUG_ECHO',
  displayName: 'Echo parameters (diagnostics)',
  category: 'Diagnostics',
  tags: ['debug'],
  hidden: true,
  description: 'Always matches; outputs { echo: parameters }. Hidden from the catalog by default.',
  inputSchema: { contractName: 'EchoInput', fields: [] },
  outputSchema: { contractName: 'EchoOutput', fields: [{ path: 'echo', dataType: 'object' }] },
  evaluate: (_facts, parameters) => ({ echo: parameters }),
});

export const BUILT_IN_RULES: readonly RuleDefinition[] = [
  AGE_CHECK,
  COUNTRY_ALLOWED,
  CREDIT_MIN,
  DEBUG_ECHO,
  DTI_MAX,
  KYC_OK,
];

/** A fresh library holding the built-in sample rules (the control plane registers it by default). */
export function createBuiltInRuleLibrary(): RuleLibrary {
  return new RuleLibrary([...BUILT_IN_RULES]);
}
