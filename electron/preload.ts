/**
 * The preload of the workbench window (sandboxed, context-isolated): exposes
 * the WorkbenchApi bridge as `window.skillbench` and nothing else.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_KEY } from '../core/api/bridge';
import { createBridge } from './bridge';

contextBridge.exposeInMainWorld(BRIDGE_KEY, createBridge(ipcRenderer));
