from arena.main import main

raise SystemExit(main())
