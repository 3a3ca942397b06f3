"""The table fleet (issue 20): a table finds the director on the local network
(``discovery``), asks to join and shows a short code the director approves
(``join``), receives its broker credentials sealed to its own key (``sealing``) and
keeps them in its folder (``membership``). The director's side is in
``table_controller.director.fleet``."""
