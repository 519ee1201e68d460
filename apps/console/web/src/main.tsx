import '@mantine/core/styles.css';
import '@xyflow/react/dist/style.css';
import { createTheme, MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { loadConfig, restoreSession } from './api';

const theme = createTheme({ primaryColor: 'indigo', defaultRadius: 'sm' });

void loadConfig().then(() => {
  restoreSession();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <MantineProvider theme={theme}>
        <App />
      </MantineProvider>
    </StrictMode>,
  );
});
