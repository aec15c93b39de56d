import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route } from 'react-router';
import { describe, expect, it } from 'vitest';
import { mockFetch } from '@/test/fetchMock';
import { renderRoutes, stubApiPerTest } from '@/test/renderRoutes';
import DeploymentsPage from './DeploymentsPage';
import { deployment, page, run } from './testData';

function renderPage(url = '/deployments') {
  return renderRoutes(
    url,
    <>
      <Route path="/deployments" element={<DeploymentsPage />} />
      <Route path="/deployments/:name" element={<p>detail page</p>} />
    </>,
  );
}

stubApiPerTest();

describe('DeploymentsPage', () => {
  it('deploys the run the run page linked to, then opens the deployment', async () => {
    const user = userEvent.setup();
    const calls = mockFetch({
      'GET /api/deployments/': [200, page([])],
      'GET /api/runs/': [200, page([run(3), run(4, 'failed')])],
      'GET /api/programs/': [200, page([])],
      'POST /api/deployments/': [201, { ...deployment(), name: 'run-3' }],
    });
    renderPage('/deployments?run=3');
    expect(await screen.findByText(/Nothing deployed yet/)).toBeInTheDocument();
    const runSelect = await screen.findByLabelText('Run');
    await waitFor(() => expect(runSelect).toHaveValue('3'));
    // Only succeeded runs have a trained program to serve.
    expect(screen.queryByRole('option', { name: /#4/ })).toBeNull();
    expect(screen.getByLabelText('Name')).toHaveValue('run-3');
    await user.click(screen.getByRole('button', { name: 'Deploy' }));
    expect(await screen.findByText('detail page')).toBeInTheDocument();
    const post = calls.find((c) => c.method === 'POST');
    expect(post?.body).toEqual({ name: 'run-3', run: 3 });
    expect(post?.headers.get('X-CSRFToken')).toBe('t');
  });

  it('shows the server error under the field it names, and checks the name as a slug', async () => {
    const user = userEvent.setup();
    mockFetch({
      'GET /api/deployments/': [200, page([deployment()])],
      'GET /api/runs/': [200, page([run(3)])],
      'GET /api/programs/': [200, page([])],
      'POST /api/deployments/': [
        400,
        { errors: [{ path: 'name', message: "you already have a deployment named 'capitals'" }] },
      ],
    });
    renderPage();
    expect(await screen.findByRole('link', { name: 'capitals' })).toHaveAttribute(
      'href',
      '/deployments/capitals',
    );
    expect(screen.getByText(/run #3 trained 3 \(capitals v1\)/)).toBeInTheDocument();
    const name = screen.getByLabelText('Name');
    await user.type(name, 'bad name');
    expect(screen.getByText('letters, digits, - and _ only')).toBeInTheDocument();
    await user.clear(name);
    await user.type(name, 'capitals');
    await user.selectOptions(await screen.findByLabelText('Run'), '3');
    await user.click(screen.getByRole('button', { name: 'Deploy' }));
    expect(
      await screen.findByText("you already have a deployment named 'capitals'"),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toHaveAttribute('aria-invalid', 'true');
  });
});
