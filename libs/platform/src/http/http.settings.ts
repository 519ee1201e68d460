import { IsInt, IsString, Max, Min } from 'class-validator';
import { ConfigKey } from '../config/config-binding';

/** Where a service listens. `PORT` (environment) also works, for platforms that set it. */
export class HttpSettings {
  @ConfigKey('Http:Port')
  @IsInt()
  @Min(0)
  @Max(65535)
  port: number = 0;

  @ConfigKey('Http:Host')
  @IsString()
  host: string = '0.0.0.0';

  /** Largest accepted request body; bigger bodies get 413 with the envelope. */
  @ConfigKey('Http:BodyLimitBytes')
  @IsInt()
  @Min(1024)
  bodyLimitBytes: number = 1_048_576;
}
