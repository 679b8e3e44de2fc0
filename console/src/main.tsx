import { startConsole } from './app';
import './styles.css';

// The console's one entry (index.html loads it): every other module only declares.
startConsole(document.getElementById('app')!);
