// What a diagnosis says is part of the HTTP contract (`last_run.diagnosis`, each run's `diagnosis`).
export { DIAGNOSIS_KINDS, type Diagnosis, type DiagnosisKind, type DiagnosisEvidence } from "@reposite/contract";
