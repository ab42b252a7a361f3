"""Two-step verification: TOTP codes and single-use recovery codes."""
