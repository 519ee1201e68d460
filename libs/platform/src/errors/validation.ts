import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, FieldProblem } from './app-error';

function collect(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent
      ? /^\d+$/.test(error.property)
        ? `${parent}[${error.property}]`
        : `${parent}.${error.property}`
      : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...collect(error.children ?? [], field)];
  });
}

/** Flattens class-validator errors into one `{ field, message }` per failed rule, with dotted paths. */
export function toFieldProblems(errors: ValidationError[]): FieldProblem[] {
  return collect(errors);
}

/** The DTO pipe every app installs: whitelist, transform, and the platform's validation error. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    stopAtFirstError: false,
    exceptionFactory: (errors) => AppError.validation(toFieldProblems(errors)),
  });
}
