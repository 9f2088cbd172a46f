# chart.svg and chart.png, written by attnzoo; rerun with `gnuplot chart.gp` in this folder.
$f0 << EOD
"full (a)" 0.4228 72.0322 7 0.30217
"flash (a)" 1.0498 72.0302 1.37625 0.301781
EOD
$f1 << EOD
"bigbird (a)" 3.2823 72.2836 2.02453 0.339627
"global (cd)" 10.6246 63.1796 1.37737 1.41195
"local (bcde)" 6.6331 60.8539 1.54717 3.87556
"longformer (defgh)" 6.0202 55.2562 1.57035 3.75418
"strided (e)" 7.3174 51.9177 1.45393 0.462458
EOD
$f2 << EOD
"compressed (e)" 2.1489 52.3562 1.42402 0.175858
"efficient (b)" 12.379 66.6103 1.3543 1.11402
"linear (f)" 8.3155 47.7804 1.36165 0.328509
"linformer (abcdefgh)" 3.836 59.5569 1.66584 10.8726
"performer (e)" 5.9607 53.0076 1.62235 0.375386
"rfa (fg)" 4.2156 48.2442 1.97844 0.361183
"synthesizer (gh)" 0.5074 49.9927 1.39291 0.745065
EOD
$f3 << EOD
"fnet (gh)" 19.1207 48.8875 1.10067 0.431732
"gmlp (e)" 0.796 52.4149 3.2061 0.50234
"mixer (e)" 16.6036 52.6764 1.13573 0.230609
EOD
$f4 << EOD
"reformer (bc)" 2.5903 66.2309 1.7434 0.481799
"routing (e)" 3.5943 52.204 1.42833 0.352373
"sinkhorn (deh)" 5.8349 55.4776 1.63932 2.77999
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart.svg'
set title "Attention Zoo on this CPU (preset mini): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text, Retrieval, Image and Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [24.664:77.7618]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full (a)" at 0.4228,72.0322 center offset char 0,2.16 front
set label 2 "bigbird (a)" at 3.2823,72.2836 center offset char 0,1.09857 front
set label 3 "compressed (e)" at 2.1489,52.3562 center offset char 0,0.970457 front
set label 4 "efficient (b)" at 12.379,66.6103 center offset char 0,0.955583 front
set label 5 "flash (a)" at 1.0498,72.0302 center offset char 0,0.960268 front
set label 6 "fnet (gh)" at 19.1207,48.8875 center offset char 0,0.901476 front
set label 7 "global (cd)" at 10.6246,63.1796 center offset char 0,0.960506 front
set label 8 "gmlp (e)" at 0.796,52.4149 center offset char 0,1.35063 front
set label 9 "linear (f)" at 8.3155,47.7804 center offset char 0,0.957153 front
set label 10 "linformer (abcdefgh)" at 3.836,59.5569 center offset char -11.1663,0 front
set label 11 "local (bcde)" at 6.6331,60.8539 center offset char 0,0.996729 front
set label 12 "longformer (defgh)" at 6.0202,55.2562 center offset char 10.1281,0 front
set label 13 "mixer (e)" at 16.6036,52.6764 center offset char 5.45429,0 front
set label 14 "performer (e)" at 5.9607,53.0076 center offset char 0,-5.01277 front
set arrow from first 5.9607,52.3987 to first 5.9607,46.4498 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer (bc)" at 2.5903,66.2309 center offset char -7.69736,0 front
set label 16 "rfa (fg)" at 4.2156,48.2442 center offset char -5.29138,-1.08873 front
set label 17 "routing (e)" at 3.5943,52.204 center offset char -6.57133,-0.971377 front
set label 18 "sinkhorn (deh)" at 5.8349,55.4776 center offset char 0,1.01639 front
set label 19 "strided (e)" at 7.3174,51.9177 center offset char 6.58157,0 front
set label 20 "synthesizer (gh)" at 0.5074,49.9927 center offset char 0,-0.963821 front
set arrow from graph 0, first 29.8025 to graph 1, first 29.8025 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 29.8025 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart.png'
set title "Attention Zoo on this CPU (preset mini): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text, Retrieval, Image and Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [24.664:77.7618]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full (a)" at 0.4228,72.0322 center offset char 0,2.16 front
set label 2 "bigbird (a)" at 3.2823,72.2836 center offset char 0,1.09857 front
set label 3 "compressed (e)" at 2.1489,52.3562 center offset char 0,0.970457 front
set label 4 "efficient (b)" at 12.379,66.6103 center offset char 0,0.955583 front
set label 5 "flash (a)" at 1.0498,72.0302 center offset char 0,0.960268 front
set label 6 "fnet (gh)" at 19.1207,48.8875 center offset char 0,0.901476 front
set label 7 "global (cd)" at 10.6246,63.1796 center offset char 0,0.960506 front
set label 8 "gmlp (e)" at 0.796,52.4149 center offset char 0,1.35063 front
set label 9 "linear (f)" at 8.3155,47.7804 center offset char 0,0.957153 front
set label 10 "linformer (abcdefgh)" at 3.836,59.5569 center offset char -11.1663,0 front
set label 11 "local (bcde)" at 6.6331,60.8539 center offset char 0,0.996729 front
set label 12 "longformer (defgh)" at 6.0202,55.2562 center offset char 10.1281,0 front
set label 13 "mixer (e)" at 16.6036,52.6764 center offset char 5.45429,0 front
set label 14 "performer (e)" at 5.9607,53.0076 center offset char 0,-5.01277 front
set arrow from first 5.9607,52.3987 to first 5.9607,46.4498 nohead lw 0.8 lc rgb '#999999' back
set label 15 "reformer (bc)" at 2.5903,66.2309 center offset char -7.69736,0 front
set label 16 "rfa (fg)" at 4.2156,48.2442 center offset char -5.29138,-1.08873 front
set label 17 "routing (e)" at 3.5943,52.204 center offset char -6.57133,-0.971377 front
set label 18 "sinkhorn (deh)" at 5.8349,55.4776 center offset char 0,1.01639 front
set label 19 "strided (e)" at 7.3174,51.9177 center offset char 6.58157,0 front
set label 20 "synthesizer (gh)" at 0.5074,49.9927 center offset char 0,-0.963821 front
set arrow from graph 0, first 29.8025 to graph 1, first 29.8025 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 29.8025 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
