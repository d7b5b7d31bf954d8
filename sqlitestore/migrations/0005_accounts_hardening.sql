-- Accounts hardening.
-- session_generation: copied into a session at login; a session holding an older value is
-- refused, so a password change ends every other session of the user without scanning the
-- sessions table.
-- totp_last_step: the last TOTP time step (Unix time / 30 s) accepted for the user; a code of
-- that step or an earlier one is refused, so a code works once.
ALTER TABLE users ADD COLUMN session_generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
