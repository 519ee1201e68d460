export { ToolsModule } from './tools.module';
