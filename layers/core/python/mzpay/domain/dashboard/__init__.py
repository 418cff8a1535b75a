"""The merchant dashboard's rules: its users' roles and permissions, its sessions."""
