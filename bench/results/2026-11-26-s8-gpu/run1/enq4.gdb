[Thread debugging using libthread_db enabled]
Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".
0x00007f53ae91bd31 in read () from /lib/x86_64-linux-gnu/libc.so.6
  Id   Target Id                                       Frame 
* 1    Thread 0x7f53aeb72000 (LWP 514) "jacobi3d_cuda" 0x00007f53ae91bd31 in read () from /lib/x86_64-linux-gnu/libc.so.6

Thread 1 (Thread 0x7f53aeb72000 (LWP 514) "jacobi3d_cuda"):
#0  0x00007f53ae91bd31 in read () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x00007f53af0d5d70 in ampi::privatize::Programs::Programs(ampi::privatize::Image const&, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) () from /work/main/build-gpu/lib/libampi.so.0
#2  0x00007f53af0c2ace in (anonymous namespace)::run_job(int, char**, char**, int (*)(int, char**, char**), (anonymous namespace)::StartPoint) () from /work/main/build-gpu/lib/libampi.so.0
#3  0x00007f53af0c3a49 in ampi_start () from /work/main/build-gpu/lib/libampi.so.0
#4  0x00007f53ae82a304 in __libc_start_main () from /lib/x86_64-linux-gnu/libc.so.6
#5  0x0000561063eb8291 in ?? ()
[Inferior 1 (process 514) detached]
