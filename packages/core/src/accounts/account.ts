/** A person, identified by email. */
export interface Account {
  id: string;
  email: string;
  created_at: string;
}
