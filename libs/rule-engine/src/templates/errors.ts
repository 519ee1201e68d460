/** Why a template could not be compiled or rendered. `code` is stable. */
export type TemplateErrorCode =
  /** The source does not parse (bad tag, unclosed block, unknown filter, forbidden tag). */
  | 'TEMPLATE_SYNTAX'
  /** Rendering failed (an error raised by a tag or a filter). */
  | 'TEMPLATE_RENDER'
  /** A parse, render-time, memory or output-size limit was hit. */
  | 'TEMPLATE_LIMIT';

export class TemplateError extends Error {
  constructor(
    readonly code: TemplateErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}
