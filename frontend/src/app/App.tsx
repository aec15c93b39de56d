import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { BrowserRouter, Navigate, NavLink, Route, Routes } from 'react-router';
import { useMe } from '@/lib/api/ops/authMe';
import { useLogout } from '@/lib/api/ops/authLogout';
import { RequireAuth } from '@/lib/auth/RequireAuth';
import { createQueryClient } from '@/lib/queryClient';
import './App.css';

// Each page is its own chunk: the canvas library loads only with the editor.
const SignInPage = lazy(() => import('@/features/auth/SignInPage'));
const SignUpPage = lazy(() => import('@/features/auth/SignUpPage'));
const EditorPage = lazy(() => import('@/features/editor/EditorPage'));
const ProgramsPage = lazy(() => import('@/features/editor/ProgramsPage'));
const DatasetsPage = lazy(() => import('@/features/datasets/DatasetsPage'));
const RewardsPage = lazy(() => import('@/features/rewards/RewardsPage'));
const RewardEditorPage = lazy(() => import('@/features/rewards/RewardEditorPage'));
const RunsPage = lazy(() => import('@/features/runs/RunsPage'));
const NewRunPage = lazy(() => import('@/features/runs/NewRunPage'));
const RunPage = lazy(() => import('@/features/runs/RunPage'));
const ComparePage = lazy(() => import('@/features/compare/ComparePage'));
const ProvidersPage = lazy(() => import('@/features/providers/ProvidersPage'));
const DeploymentsPage = lazy(() => import('@/features/deployments/DeploymentsPage'));
const DeploymentPage = lazy(() => import('@/features/deployments/DeploymentPage'));

const LINKS = [
  { to: '/programs', label: 'Programs' },
  { to: '/editor', label: 'Editor' },
  { to: '/datasets', label: 'Datasets' },
  { to: '/rewards', label: 'Rewards' },
  { to: '/runs', label: 'Runs' },
  { to: '/compare', label: 'Compare' },
  { to: '/deployments', label: 'Deployments' },
  { to: '/providers', label: 'Providers' },
];

function Guarded({ children }: { children: ReactNode }) {
  return <RequireAuth>{children}</RequireAuth>;
}

/** The app's sections, for a signed-in user only: signed out, the sign-in page stands alone. */
function MainNav() {
  const me = useMe();
  if (!me.data) return null;
  return (
    <nav aria-label="Main">
      {LINKS.map((link) => (
        <NavLink key={link.to} to={link.to} className="app-nav-link">
          {link.label}
        </NavLink>
      ))}
    </nav>
  );
}

function UserMenu() {
  const me = useMe();
  const logout = useLogout();
  if (!me.data) return null;
  return (
    <div className="app-user">
      {me.data.is_staff && (
        // Django's admin (users, and every row), served by Django itself: a full page load.
        <a className="btn btn-small btn-ghost" href="/admin/">
          Admin
        </a>
      )}
      <span>{me.data.username}</span>
      <button type="button" className="btn btn-small btn-ghost" onClick={() => logout.mutate()}>
        Sign out
      </button>
    </div>
  );
}

export function App() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <div className="app">
          <header className="app-header">
            <a className="app-brand" href="/programs" aria-label="Studio home">
              <img src="/favicon.svg" alt="" width={22} height={22} />
              Studio
            </a>
            <MainNav />
            <UserMenu />
          </header>
          <main className="app-main">
            <Suspense fallback={<div className="app-loading">Loading…</div>}>
              <Routes>
                <Route path="/login" element={<SignInPage />} />
                <Route path="/signup" element={<SignUpPage />} />
                <Route path="/" element={<Navigate to="/programs" replace />} />
                <Route
                  path="/programs"
                  element={
                    <Guarded>
                      <ProgramsPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/editor"
                  element={
                    <Guarded>
                      <EditorPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/editor/:programId"
                  element={
                    <Guarded>
                      <EditorPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/datasets"
                  element={
                    <Guarded>
                      <DatasetsPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/rewards"
                  element={
                    <Guarded>
                      <RewardsPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/rewards/:scorerId"
                  element={
                    <Guarded>
                      <RewardEditorPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/runs"
                  element={
                    <Guarded>
                      <RunsPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/runs/new"
                  element={
                    <Guarded>
                      <NewRunPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/runs/:runId"
                  element={
                    <Guarded>
                      <RunPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/compare"
                  element={
                    <Guarded>
                      <ComparePage />
                    </Guarded>
                  }
                />
                <Route
                  path="/providers"
                  element={
                    <Guarded>
                      <ProvidersPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/deployments"
                  element={
                    <Guarded>
                      <DeploymentsPage />
                    </Guarded>
                  }
                />
                <Route
                  path="/deployments/:name"
                  element={
                    <Guarded>
                      <DeploymentPage />
                    </Guarded>
                  }
                />
                <Route path="*" element={<Navigate to="/programs" replace />} />
              </Routes>
            </Suspense>
          </main>
        </div>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
