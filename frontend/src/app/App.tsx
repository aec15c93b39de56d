import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { BrowserRouter, Navigate, NavLink, Route, Routes } from 'react-router';
import { createQueryClient } from '@/lib/queryClient';
import './App.css';

// Each page is its own chunk: the canvas library loads only with the editor.
const EditorPage = lazy(() => import('@/features/editor/EditorPage'));
const DatasetsPage = lazy(() => import('@/features/datasets/DatasetsPage'));
const RunsPage = lazy(() => import('@/features/runs/RunsPage'));
const ComparePage = lazy(() => import('@/features/compare/ComparePage'));

const LINKS = [
  { to: '/editor', label: 'Programs' },
  { to: '/datasets', label: 'Datasets' },
  { to: '/runs', label: 'Runs' },
  { to: '/compare', label: 'Compare' },
];

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <div className="app">
          <header className="app-header">
            <a className="app-brand" href="/editor" aria-label="Studio home">
              <img src="/favicon.svg" alt="" width={22} height={22} />
              Studio
            </a>
            <nav aria-label="Main">
              {LINKS.map((link) => (
                <NavLink key={link.to} to={link.to} className="app-nav-link">
                  {link.label}
                </NavLink>
              ))}
            </nav>
          </header>
          <main className="app-main">
            <Suspense fallback={<div className="app-loading">Loading…</div>}>
              <Routes>
                <Route path="/" element={<Navigate to="/editor" replace />} />
                <Route path="/editor" element={<EditorPage />} />
                <Route path="/datasets" element={<DatasetsPage />} />
                <Route path="/runs" element={<RunsPage />} />
                <Route path="/compare" element={<ComparePage />} />
                <Route path="*" element={<Navigate to="/editor" replace />} />
              </Routes>
            </Suspense>
          </main>
        </div>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
