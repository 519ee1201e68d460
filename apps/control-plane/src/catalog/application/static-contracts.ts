import { Inject, Injectable } from '@nestjs/common';
import { RuleCatalogSettings } from '../catalog.settings';
import type { ContractSourceType, StaticContract } from '../domain/contract-source';

/** The static fallback contracts of `RuleCatalog:StaticContractsPath`. */
@Injectable()
export class StaticContracts {
  private readonly contracts = new Map<string, StaticContract>();

  constructor(@Inject(RuleCatalogSettings) settings: RuleCatalogSettings) {
    for (const entry of settings.sources().staticContracts)
      this.contracts.set(`${entry.sourceType}/${entry.sourceCode}`, entry);
  }

  find(sourceType: ContractSourceType, sourceCode: string): StaticContract | undefined {
    return this.contracts.get(`${sourceType}/${sourceCode}`);
  }
}
