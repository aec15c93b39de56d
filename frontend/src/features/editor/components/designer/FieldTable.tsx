import type { DataModelDef } from '@/lib/datamodel/schema';
import { addField, moveField, removeField, replaceField } from '../../model/dataModelDraft';
import styles from '../designer.module.css';
import { FieldRow } from './FieldRow';

/** The draft's fields, one row each, and a button adding one. */
export function FieldTable({
  draft,
  models,
  session,
  onChange,
}: {
  draft: DataModelDef;
  /** The models a field can hold. */
  models: string[];
  /** Changes when another model is opened: the rows start over. */
  session: string;
  onChange: (draft: DataModelDef) => void;
}) {
  return (
    <>
      <table className={styles.fields}>
        <thead>
          <tr>
            <th>Field</th>
            <th>Type</th>
            <th>Required</th>
            <th>Default</th>
            <th>Description</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody key={session}>
          {draft.fields.map((field, index) => (
            <FieldRow
              key={index}
              field={field}
              models={models}
              onChange={(f) => onChange(replaceField(draft, index, f))}
              onRemove={() => onChange(removeField(draft, index))}
              onMove={(by) => onChange(moveField(draft, index, by))}
              first={index === 0}
              last={index === draft.fields.length - 1}
            />
          ))}
        </tbody>
      </table>
      <button type="button" className="btn btn-small" onClick={() => onChange(addField(draft))}>
        + Add field
      </button>
    </>
  );
}
